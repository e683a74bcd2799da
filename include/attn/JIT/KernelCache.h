//===- KernelCache.h - on-disk cache of compiled kernels --------*- C++ -*-===//
//
// A directory of compiled kernels keyed by a canonical string (for the JIT:
// the problem's canonical IR, the chip, the compiler version and options).
// It needs POSIX, the C++17 library and LLVMSupport (SHA-256), no MLIR.
// Nothing throws.
//
//   attn::jit::KernelCache cache;                  // default directory
//   attn::jit::CacheResult r = cache.getOrCreate(key,
//       [&](std::string &payload, std::string &error) {
//         return compile(payload, error);          // runs only on a miss
//       });
//   if (!r.corruption.empty()) warn("bad cache entry: " + r.corruption);
//   if (r.outcome == CacheOutcome::NotStored) warn(r.storeError);
//   if (!r.ok()) fail(r.error);
//   use(r.payload);
//
// Location: KernelCacheOptions::directory, else $ATTN_CACHE_DIR, else
// $XDG_CACHE_HOME/attn (an absolute XDG_CACHE_HOME only, as the XDG spec
// says), else $HOME/.cache/attn, else the passwd entry's home/.cache/attn.
// Missing directories are created (mode 0700) on the first store.
//
// Files in the directory, for a key K with h = lowercase hex SHA-256 of K:
//   <h>                 the entry
//   <h>.lock            advisory lock (flock) held while K is being computed
//                       by getOrCreate; left in place (removing a lock file
//                       others may hold would let two holders coexist)
//   <h>.tmp.<pid>.<tid>.<random>
//                       an entry being written; never read; a crashed
//                       writer's leftovers go with sweepTemporaryFiles
//
// Entry format (version 1; integers little-endian):
//   offset  size  field
//        0     8  magic "ATTN-KC\n"
//        8     4  format version (1)
//       12     4  key length K
//       16     8  payload length P
//       24    32  SHA-256 of the payload
//       56    32  SHA-256 of bytes [0, 56) (the fields above)
//       88     K  the key, verbatim
//     88+K     P  the payload (opaque bytes)
// and the file is exactly 88 + K + P bytes long. A lookup checks, in order:
// the size against the fixed header, magic, version, the header checksum,
// the size against 88 + K + P, the key against the caller's (so a hash
// collision or a misplaced file is a mismatch, not a hit), and the payload
// checksum. Every truncation and every changed byte fails one of these.
//
// Guarantees:
//  - Entries are written to a fresh temporary file in the same directory
//    (O_EXCL), fsync'd and renamed over <h> (then the directory is fsync'd),
//    so a reader sees either no entry or a complete one, never a partial one,
//    and concurrent writers of one key leave exactly one entry.
//  - A bad entry (truncated, changed bytes, wrong magic or version, another
//    key) is reported with the reason, removed (unless the cache is
//    read-only) and treated as a miss, so getOrCreate rebuilds it.
//  - getOrCreate runs `compute` once per key at a time: in one process,
//    concurrent callers of one key wait for a single computation and share
//    its result, while different keys proceed in parallel; across processes,
//    the computing caller holds <h>.lock, and the others wait for it and
//    then read the entry. Where no lock can be taken (read-only or missing
//    directory) it computes without one.
//  - An unwritable cache (read-only mode or directory, a path through a
//    regular file, a full disk) never fails getOrCreate: the payload is
//    returned with outcome NotStored and the reason in storeError.
//  - A KernelCache may be used from any number of threads.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_JIT_KERNELCACHE_H
#define ATTN_JIT_KERNELCACHE_H

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attn::jit {

//===----------------------------------------------------------------------===//
// SHA-256 (LLVM's llvm::SHA256): cache keys and entry checksums
//===----------------------------------------------------------------------===//

using Sha256Digest = std::array<uint8_t, 32>;

Sha256Digest sha256(std::string_view data);
/// Lowercase hex of a digest (64 characters).
std::string toHex(const Sha256Digest &digest);
/// Lowercase hex SHA-256 of `data`.
std::string sha256Hex(std::string_view data);

//===----------------------------------------------------------------------===//
// KernelCache
//===----------------------------------------------------------------------===//

struct KernelCacheOptions {
  /// The cache directory; empty: defaultCacheDirectory().
  std::string directory;
  /// Lookups only: store, remove and sweep fail, nothing in the directory is
  /// created or removed (a bad entry is reported but left), and getOrCreate
  /// computes every miss without storing it.
  bool readOnly = false;
};

/// The directory used when the options name none (see the file comment), or
/// "" when no variable is set and the user has no home directory (`why` then
/// says so).
std::string defaultCacheDirectory(std::string *why = nullptr);

/// What a lookup found.
enum class LookupStatus {
  Hit,        ///< a valid entry for the key: `payload`
  Miss,       ///< no entry
  Corrupt,    ///< an entry that failed a check: `reason` (which check, not
              ///< the path: see entryPath); removed unless
              ///< the cache is read-only or it changed meanwhile (`removed`)
  Unreadable, ///< the entry could not be read (`reason`: open/read error,
              ///< e.g. a directory in its place); left alone
};

struct LookupResult {
  LookupStatus status = LookupStatus::Miss;
  std::string payload;
  std::string reason;
  bool removed = false;

  bool hit() const { return status == LookupStatus::Hit; }
};

/// What getOrCreate did.
enum class CacheOutcome {
  Hit,       ///< a valid entry was read from the cache
  Stored,    ///< computed by this call and stored
  NotStored, ///< computed by this call but not stored: `storeError` says why
  Shared,    ///< computed by a concurrent call in this process for the same
             ///< key, which reports how it went; this call got its payload
  Failed,    ///< compute failed (in this call or the one it shared): `error`
};

/// "hit", "stored", "not stored", "shared", "failed".
const char *cacheOutcomeName(CacheOutcome outcome);

struct CacheResult {
  CacheOutcome outcome = CacheOutcome::Failed;
  /// The entry's payload (empty when Failed).
  std::string payload;
  /// Failed: compute's message.
  std::string error;
  /// NotStored: why the payload could not be stored.
  std::string storeError;
  /// Non-empty when a bad or unreadable entry was found for the key: why.
  /// It was removed (unless read-only) and the payload recomputed.
  std::string corruption;
  /// This call waited for another thread's or process's computation.
  bool waited = false;

  bool ok() const { return outcome != CacheOutcome::Failed; }
};

/// Produces the payload of a missing entry: true and `payload` set, or
/// false and `error` set.
using ComputeFn = std::function<bool(std::string &payload, std::string &error)>;

/// One file in the cache directory that holds an entry.
struct CacheEntryInfo {
  std::string hash; ///< the file name: hex SHA-256 of the key
  std::string path;
  uint64_t size = 0;
  std::time_t modified = 0;
};

class KernelCache {
public:
  explicit KernelCache(KernelCacheOptions options = {});
  ~KernelCache();
  KernelCache(const KernelCache &) = delete;
  KernelCache &operator=(const KernelCache &) = delete;

  /// The resolved directory; "" if none could be found (every store then
  /// fails and every lookup misses).
  const std::string &directory() const;
  bool readOnly() const;

  /// <directory>/<hex SHA-256 of key>; "" without a directory.
  std::string entryPath(std::string_view key) const;

  /// Reads and checks the key's entry. A bad entry is removed unless the
  /// cache is read-only or another caller is rebuilding the key right now
  /// (it holds the key's lock and will replace the entry).
  LookupResult lookup(std::string_view key) const;

  /// Writes the entry atomically (replacing any entry of the key). False and
  /// `error` set if the cache is read-only or the directory cannot be
  /// created or written; nothing is left behind then.
  bool store(std::string_view key, std::string_view payload,
             std::string *error = nullptr) const;

  /// Removes the key's entry. True if none remains (removed or absent).
  bool remove(std::string_view key, std::string *error = nullptr) const;

  /// The entry if there is a valid one, else compute's payload, stored. See
  /// the file comment for concurrency; `compute` runs at most once per call,
  /// with no lock of this object held, and must not ask for the same key
  /// again (it would wait for itself). A process forked while a computation
  /// is in flight must not use this object (the child has no computing
  /// thread to wait for); a fresh KernelCache in the child is fine.
  CacheResult getOrCreate(std::string_view key, const ComputeFn &compute);

  /// The entry files (not lock or temporary files), in no particular order.
  /// A missing directory has none.
  std::vector<CacheEntryInfo> list(std::string *error = nullptr) const;

  /// Removes temporary files (of crashed writers) last modified at least
  /// `minAge` ago; a live writer's file is younger than that. Returns how
  /// many were removed; -1 with `error` set if the directory is unreadable
  /// or the cache read-only.
  int sweepTemporaryFiles(std::chrono::seconds minAge = std::chrono::hours(1),
                          std::string *error = nullptr) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace attn::jit

#endif // ATTN_JIT_KERNELCACHE_H
