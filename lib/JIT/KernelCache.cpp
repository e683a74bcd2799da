//===- KernelCache.cpp - on-disk cache of compiled kernels ------*- C++ -*-===//
//
// POSIX, the C++ library and LLVMSupport (SHA-256). Errors are returned as
// messages; nothing throws (LLVM builds without exceptions).
//
//===----------------------------------------------------------------------===//
#include "attn/JIT/KernelCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <mutex>
#include <pwd.h>
#include <random>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <system_error>
#include <unistd.h>
#include <unordered_map>

namespace attn::jit {

//===----------------------------------------------------------------------===//
// SHA-256 (LLVM's)
//===----------------------------------------------------------------------===//

Sha256Digest sha256(std::string_view data) {
  return llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(data.data()), data.size()));
}

std::string toHex(const Sha256Digest &digest) {
  return llvm::toHex(digest, /*LowerCase=*/true);
}

std::string sha256Hex(std::string_view data) { return toHex(sha256(data)); }

//===----------------------------------------------------------------------===//
// File helpers
//===----------------------------------------------------------------------===//

namespace {
constexpr char kMagic[8] = {'A', 'T', 'T', 'N', '-', 'K', 'C', '\n'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderChecksumOffset = 56;
constexpr size_t kHeaderSize = 88;

// strerror is not thread-safe; this is.
std::string errorText(int err) {
  return std::error_code(err, std::generic_category()).message();
}

/// Closes the descriptor it owns.
class Fd {
public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  Fd(Fd &&other) : fd_(other.fd_) { other.fd_ = -1; }
  Fd &operator=(Fd &&other) {
    if (this != &other) {
      reset();
      fd_ = other.fd_;
      other.fd_ = -1;
    }
    return *this;
  }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  /// Closes now; the close's errno if it failed, else 0.
  int reset() {
    int err = 0;
    if (fd_ >= 0 && ::close(fd_) != 0)
      err = errno;
    fd_ = -1;
    return err;
  }

private:
  int fd_;
};

int openRetry(const char *path, int flags, mode_t mode = 0) {
  int fd;
  do
    fd = ::open(path, flags, mode);
  while (fd < 0 && errno == EINTR);
  return fd;
}

/// 0, or the errno of the failed write.
int writeAll(int fd, const void *data, size_t size) {
  const char *p = static_cast<const char *>(data);
  while (size) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return errno;
    }
    p += n;
    size -= size_t(n);
  }
  return 0;
}

void putLE(uint8_t *p, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    p[i] = uint8_t(value >> (8 * i));
}

uint64_t getLE(const uint8_t *p, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i)
    value |= uint64_t(p[i]) << (8 * i);
  return value;
}

bool isHex64(std::string_view name) {
  if (name.size() < 64)
    return false;
  for (size_t i = 0; i < 64; ++i) {
    char c = name[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  }
  return true;
}

bool isEntryName(std::string_view name) {
  return name.size() == 64 && isHex64(name);
}

bool isTemporaryName(std::string_view name) {
  return isHex64(name) && name.substr(64, 5) == ".tmp.";
}

/// Creates `path` and its missing parents (mode 0700).
bool ensureDirectory(const std::string &path, std::string &error) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return true;
    error = "cache directory " + path + " exists and is not a directory";
    return false;
  }
  // Every prefix ending before a '/', then the whole path; one that exists
  // (EEXIST) is fine, whoever made it.
  for (size_t pos = path.find('/', 1);; pos = path.find('/', pos + 1)) {
    std::string prefix = path.substr(0, pos);
    if (!prefix.empty() && ::mkdir(prefix.c_str(), 0700) != 0 &&
        errno != EEXIST) {
      error =
          "cannot create cache directory " + prefix + ": " + errorText(errno);
      return false;
    }
    if (pos == std::string::npos)
      break;
  }
  if (::stat(path.c_str(), &st) != 0) {
    error = "cannot create cache directory " + path + ": " + errorText(errno);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    error = "cache directory " + path + " exists and is not a directory";
    return false;
  }
  return true;
}

/// Makes a rename in `dir` durable; best effort (some filesystems refuse
/// fsync on directories, and the entry is complete either way).
void syncDirectory(const std::string &dir) {
  Fd fd(openRetry(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.valid())
    (void)::fsync(fd.get());
}

std::string temporarySuffix() {
  // Seeded per thread; pid and tid in the name keep forked children (which
  // copy the engine) apart, and O_EXCL catches what is left.
  thread_local std::mt19937_64 engine([] {
    std::random_device device;
    return (uint64_t(device()) << 32) ^ device() ^
           uint64_t(
               std::chrono::steady_clock::now().time_since_epoch().count());
  }());
  char buffer[96];
  std::snprintf(buffer, sizeof(buffer), ".tmp.%ld.%ld.%016llx",
                long(::getpid()), long(::syscall(SYS_gettid)),
                static_cast<unsigned long long>(engine()));
  return buffer;
}

/// The result of reading one entry file, with its identity so that a bad
/// file is removed only if it is still the one that was read.
struct ReadEntry {
  LookupStatus status = LookupStatus::Miss;
  std::string payload;
  std::string reason;
  dev_t device = 0;
  ino_t inode = 0;
};

/// Why `data` is not a valid entry for `key`, or "" if it is; sets
/// `payload` when valid.
std::string checkEntry(const std::string &data, std::string_view key,
                       std::string &payload) {
  const auto *bytes = reinterpret_cast<const uint8_t *>(data.data());
  size_t size = data.size();
  if (size == 0)
    return "empty file";
  if (size < kHeaderSize)
    return "truncated inside the header (" + std::to_string(size) + " of " +
           std::to_string(kHeaderSize) + " header bytes)";
  if (std::memcmp(bytes, kMagic, sizeof(kMagic)) != 0)
    return "bad magic (not a kernel cache entry)";
  uint64_t version = getLE(bytes + 8, 4);
  if (version != kFormatVersion)
    return "format version " + std::to_string(version) + ", expected " +
           std::to_string(kFormatVersion);
  Sha256Digest headerSum =
      sha256(std::string_view(data.data(), kHeaderChecksumOffset));
  if (std::memcmp(headerSum.data(), bytes + kHeaderChecksumOffset, 32) != 0)
    return "header checksum mismatch";
  uint64_t keyLength = getLE(bytes + 12, 4);
  uint64_t payloadLength = getLE(bytes + 16, 8);
  uint64_t keyEnd = kHeaderSize + keyLength;
  if (payloadLength > UINT64_MAX - keyEnd)
    return "payload length " + std::to_string(payloadLength) + " overflows";
  uint64_t expected = keyEnd + payloadLength;
  if (size < expected)
    return std::string("truncated inside the ") +
           (size < keyEnd ? "key" : "payload") + " (" + std::to_string(size) +
           " of " + std::to_string(expected) + " bytes)";
  if (size > expected)
    return std::to_string(size - expected) +
           " trailing bytes after the payload (" + std::to_string(size) +
           " bytes, expected " + std::to_string(expected) + ")";
  if (keyLength != key.size() ||
      std::memcmp(bytes + kHeaderSize, key.data(), key.size()) != 0)
    return "key mismatch (the entry holds another key)";
  Sha256Digest payloadSum =
      sha256(std::string_view(data.data() + keyEnd, size_t(payloadLength)));
  if (std::memcmp(payloadSum.data(), bytes + 24, 32) != 0)
    return "payload checksum mismatch";
  payload.assign(data, size_t(keyEnd), size_t(payloadLength));
  return "";
}

ReadEntry readEntry(const std::string &path, std::string_view key) {
  ReadEntry result;
  // O_NONBLOCK: a FIFO in the entry's place must not hang the lookup (it is
  // rejected below as not a regular file); regular files ignore the flag.
  Fd fd(openRetry(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno != ENOENT && errno != ENOTDIR) {
      result.status = LookupStatus::Unreadable;
      result.reason = "cannot open " + path + ": " + errorText(errno);
    }
    return result;
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) {
    result.status = LookupStatus::Unreadable;
    result.reason = "cannot stat " + path + ": " + errorText(errno);
    return result;
  }
  if (!S_ISREG(st.st_mode)) {
    result.status = LookupStatus::Unreadable;
    result.reason = path + " is not a regular file";
    return result;
  }
  result.device = st.st_dev;
  result.inode = st.st_ino;
  // Entries are never modified in place (writers rename a new file over
  // them), so the size read here is the file's for good.
  std::string data(size_t(st.st_size), '\0');
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::pread(fd.get(), &data[done], data.size() - done, off_t(done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      result.status = LookupStatus::Unreadable;
      result.reason = "cannot read " + path + ": " + errorText(errno);
      return result;
    }
    if (n == 0)
      break;
    done += size_t(n);
  }
  data.resize(done);
  std::string reason = checkEntry(data, key, result.payload);
  if (reason.empty()) {
    result.status = LookupStatus::Hit;
  } else {
    // The caller knows the path (entryPath) and usually prints it.
    result.status = LookupStatus::Corrupt;
    result.reason = std::move(reason);
  }
  return result;
}

/// Unlinks the bad entry at `path` if it is still the file that was read (a
/// writer may have renamed a good one over it since).
bool removeIfUnchanged(const std::string &path, const ReadEntry &read) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || st.st_dev != read.device ||
      st.st_ino != read.inode)
    return false;
  return ::unlink(path.c_str()) == 0;
}

/// The per-key advisory lock across processes (flock on <hash>.lock).
class KeyLock {
public:
  /// Takes the lock, creating the directory and lock file if needed; false
  /// (and `why`) if that is impossible. `waited`: another holder had it.
  bool acquire(const std::string &directory, const std::string &lockPath,
               bool &waited, std::string &why) {
    if (!ensureDirectory(directory, why))
      return false;
    fd_ = Fd(openRetry(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (!fd_.valid()) {
      int err = errno;
      // An existing lock file in a directory this process cannot write
      // still serialises the computation (the store will fail, though).
      fd_ = Fd(openRetry(lockPath.c_str(), O_RDONLY | O_CLOEXEC));
      if (!fd_.valid()) {
        why = "cannot open lock file " + lockPath + ": " + errorText(err);
        return false;
      }
    }
    if (::flock(fd_.get(), LOCK_EX | LOCK_NB) == 0)
      return true;
    if (errno != EWOULDBLOCK) {
      why = "cannot lock " + lockPath + ": " + errorText(errno);
      fd_.reset();
      return false;
    }
    waited = true;
    int rc;
    do
      rc = ::flock(fd_.get(), LOCK_EX);
    while (rc != 0 && errno == EINTR);
    if (rc != 0) {
      why = "cannot lock " + lockPath + ": " + errorText(errno);
      fd_.reset();
      return false;
    }
    return true;
  }

  bool held() const { return fd_.valid(); }

  /// Closing the descriptor releases the lock.
  void release() { fd_.reset(); }

private:
  Fd fd_;
};
} // namespace

//===----------------------------------------------------------------------===//
// Directory resolution
//===----------------------------------------------------------------------===//

std::string defaultCacheDirectory(std::string *why) {
  if (const char *dir = std::getenv("ATTN_CACHE_DIR"); dir && *dir)
    return dir;
  // The XDG spec: a relative XDG_CACHE_HOME is invalid and ignored.
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
    return std::string(xdg) + "/attn";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/attn";
  struct passwd entry, *found = nullptr;
  char buffer[4096];
  if (::getpwuid_r(::getuid(), &entry, buffer, sizeof(buffer), &found) == 0 &&
      found && found->pw_dir && *found->pw_dir)
    return std::string(found->pw_dir) + "/.cache/attn";
  if (why)
    *why = "no kernel cache directory: set ATTN_CACHE_DIR, XDG_CACHE_HOME or "
           "HOME";
  return "";
}

const char *cacheOutcomeName(CacheOutcome outcome) {
  switch (outcome) {
  case CacheOutcome::Hit:
    return "hit";
  case CacheOutcome::Stored:
    return "stored";
  case CacheOutcome::NotStored:
    return "not stored";
  case CacheOutcome::Shared:
    return "shared";
  case CacheOutcome::Failed:
    return "failed";
  }
  return "unknown";
}

//===----------------------------------------------------------------------===//
// KernelCache
//===----------------------------------------------------------------------===//

struct KernelCache::Impl {
  /// One in-process computation of a key, which concurrent callers of the
  /// same key wait for.
  struct Flight {
    std::mutex mutex;
    std::condition_variable done;
    bool finished = false;
    CacheResult result;
  };

  std::string directory;
  std::string noDirectory; ///< why directory is empty
  bool readOnly = false;

  std::mutex flightsMutex;
  std::unordered_map<std::string, std::shared_ptr<Flight>> flights;

  std::string hashOf(std::string_view key) const { return sha256Hex(key); }
  std::string pathOf(const std::string &hash) const {
    return directory + "/" + hash;
  }

  /// Reads the key's entry; a bad one is removed when `removeBad`, taking
  /// the key's lock first (without waiting) if `lockForRemoval`, so that
  /// an entry someone is rebuilding is left to them.
  LookupResult lookup(std::string_view key, bool removeBad,
                      bool lockForRemoval) const {
    LookupResult result;
    if (directory.empty())
      return result;
    std::string hash = hashOf(key);
    std::string path = pathOf(hash);
    ReadEntry read = readEntry(path, key);
    result.status = read.status;
    result.reason = std::move(read.reason);
    result.payload = std::move(read.payload);
    if (read.status != LookupStatus::Corrupt || !removeBad || readOnly)
      return result;
    Fd lock;
    if (lockForRemoval) {
      lock = Fd(openRetry((path + ".lock").c_str(), O_RDONLY | O_CLOEXEC));
      if (lock.valid() && ::flock(lock.get(), LOCK_EX | LOCK_NB) != 0)
        return result; // being rebuilt by its holder
    }
    result.removed = removeIfUnchanged(path, read);
    return result;
  }

  bool store(std::string_view key, std::string_view payload,
             std::string &error) const {
    if (readOnly) {
      error = "the kernel cache " + directory + " is read-only";
      return false;
    }
    if (directory.empty()) {
      error = noDirectory;
      return false;
    }
    if (key.size() > UINT32_MAX) {
      error = "cache key of " + std::to_string(key.size()) +
              " bytes is too long (at most 4 GiB)";
      return false;
    }
    if (!ensureDirectory(directory, error))
      return false;

    std::string hash = hashOf(key);
    std::string path = pathOf(hash);
    std::string temporary;
    Fd fd;
    for (int attempt = 0; attempt < 16 && !fd.valid(); ++attempt) {
      temporary = path + temporarySuffix();
      fd = Fd(openRetry(temporary.c_str(),
                        O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
      if (!fd.valid() && errno != EEXIST) {
        error = "cannot create " + temporary + ": " + errorText(errno);
        return false;
      }
    }
    if (!fd.valid()) {
      error = "cannot create a unique temporary file next to " + path;
      return false;
    }

    uint8_t header[kHeaderSize] = {};
    std::memcpy(header, kMagic, sizeof(kMagic));
    putLE(header + 8, kFormatVersion, 4);
    putLE(header + 12, key.size(), 4);
    putLE(header + 16, payload.size(), 8);
    Sha256Digest payloadSum = sha256(payload);
    std::memcpy(header + 24, payloadSum.data(), 32);
    Sha256Digest headerSum = sha256(std::string_view(
        reinterpret_cast<const char *>(header), kHeaderChecksumOffset));
    std::memcpy(header + kHeaderChecksumOffset, headerSum.data(), 32);

    // A failure from here on removes the temporary file: a full disk must
    // not fill up further with half-written entries.
    auto fail = [&](const char *what, int err) {
      fd.reset();
      ::unlink(temporary.c_str());
      error = std::string(what) + " " + temporary + ": " + errorText(err);
      return false;
    };
    if (int err = writeAll(fd.get(), header, sizeof(header)))
      return fail("cannot write", err);
    if (int err = writeAll(fd.get(), key.data(), key.size()))
      return fail("cannot write", err);
    if (int err = writeAll(fd.get(), payload.data(), payload.size()))
      return fail("cannot write", err);
    if (::fsync(fd.get()) != 0)
      return fail("cannot fsync", errno);
    if (int err = fd.reset())
      return fail("cannot close", err);
    if (::rename(temporary.c_str(), path.c_str()) != 0) {
      int err = errno;
      ::unlink(temporary.c_str());
      error =
          "cannot rename " + temporary + " to " + path + ": " + errorText(err);
      return false;
    }
    syncDirectory(directory);
    return true;
  }

  /// getOrCreate's work for the one caller of a key in this process.
  CacheResult compute(std::string_view key, const ComputeFn &computeFn) {
    CacheResult result;
    LookupResult found = lookup(key, /*removeBad=*/false, false);
    if (found.hit()) {
      result.outcome = CacheOutcome::Hit;
      result.payload = std::move(found.payload);
      return result;
    }
    result.corruption = std::move(found.reason);

    // Without the lock (read-only or missing directory, no flock) compute
    // anyway: the store then fails and says why, or, if it works, the
    // rename keeps the entry whole even if another process races us.
    // Why the lock failed is not reported: the store then fails for the
    // same reason (and says so), or works and nothing was lost.
    KeyLock lock;
    std::string lockError;
    if (!readOnly && !directory.empty() &&
        lock.acquire(directory, pathOf(hashOf(key)) + ".lock", result.waited,
                     lockError)) {
      // Whoever held the lock may have stored the entry meanwhile.
      found = lookup(key, /*removeBad=*/true, /*lockForRemoval=*/false);
      if (found.hit()) {
        result.outcome = CacheOutcome::Hit;
        result.payload = std::move(found.payload);
        result.corruption.clear(); // replaced by the holder, who reported it
        return result;
      }
      if (found.status != LookupStatus::Miss)
        result.corruption = std::move(found.reason);
    } else if (!result.corruption.empty()) {
      // Without the lock, remove a bad entry only if still the same file.
      lookup(key, /*removeBad=*/true, /*lockForRemoval=*/true);
    }

    std::string error;
    if (!computeFn(result.payload, error)) {
      result.outcome = CacheOutcome::Failed;
      result.payload.clear();
      result.error = error.empty() ? "the kernel computation failed" : error;
      return result;
    }
    result.outcome = store(key, result.payload, result.storeError)
                         ? CacheOutcome::Stored
                         : CacheOutcome::NotStored;
    return result;
  }
};

KernelCache::KernelCache(KernelCacheOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->readOnly = options.readOnly;
  impl_->directory = options.directory.empty()
                         ? defaultCacheDirectory(&impl_->noDirectory)
                         : std::move(options.directory);
  // "/a/b/" and "/a/b" name one cache; entry paths join with a '/'.
  while (impl_->directory.size() > 1 && impl_->directory.back() == '/')
    impl_->directory.pop_back();
}

KernelCache::~KernelCache() = default;

const std::string &KernelCache::directory() const { return impl_->directory; }

bool KernelCache::readOnly() const { return impl_->readOnly; }

std::string KernelCache::entryPath(std::string_view key) const {
  if (impl_->directory.empty())
    return "";
  return impl_->pathOf(impl_->hashOf(key));
}

LookupResult KernelCache::lookup(std::string_view key) const {
  return impl_->lookup(key, /*removeBad=*/true, /*lockForRemoval=*/true);
}

bool KernelCache::store(std::string_view key, std::string_view payload,
                        std::string *error) const {
  std::string message;
  bool ok = impl_->store(key, payload, message);
  if (!ok && error)
    *error = std::move(message);
  return ok;
}

bool KernelCache::remove(std::string_view key, std::string *error) const {
  if (impl_->readOnly || impl_->directory.empty()) {
    if (error)
      *error = impl_->readOnly
                   ? "the kernel cache " + impl_->directory + " is read-only"
                   : impl_->noDirectory;
    return false;
  }
  std::string path = entryPath(key);
  if (::unlink(path.c_str()) == 0 || errno == ENOENT || errno == ENOTDIR)
    return true;
  if (error)
    *error = "cannot remove " + path + ": " + errorText(errno);
  return false;
}

CacheResult KernelCache::getOrCreate(std::string_view key,
                                     const ComputeFn &compute) {
  std::shared_ptr<Impl::Flight> flight;
  bool leader = false;
  {
    std::lock_guard<std::mutex> guard(impl_->flightsMutex);
    auto [it, inserted] = impl_->flights.try_emplace(std::string(key), nullptr);
    if (inserted)
      it->second = std::make_shared<Impl::Flight>();
    flight = it->second;
    leader = inserted;
  }

  if (!leader) {
    std::unique_lock<std::mutex> lock(flight->mutex);
    flight->done.wait(lock, [&] { return flight->finished; });
    // The leader reports corruption and store problems; its followers only
    // need the payload (or the error).
    CacheResult shared;
    const CacheResult &theirs = flight->result;
    shared.outcome = theirs.outcome == CacheOutcome::Hit ||
                             theirs.outcome == CacheOutcome::Failed
                         ? theirs.outcome
                         : CacheOutcome::Shared;
    shared.payload = theirs.payload;
    shared.error = theirs.error;
    shared.waited = true;
    return shared;
  }

  CacheResult result = impl_->compute(key, compute);
  {
    std::lock_guard<std::mutex> lock(flight->mutex);
    flight->result = result;
    flight->finished = true;
  }
  flight->done.notify_all();
  {
    std::lock_guard<std::mutex> guard(impl_->flightsMutex);
    impl_->flights.erase(std::string(key));
  }
  return result;
}

std::vector<CacheEntryInfo> KernelCache::list(std::string *error) const {
  std::vector<CacheEntryInfo> entries;
  if (impl_->directory.empty())
    return entries;
  DIR *dir = ::opendir(impl_->directory.c_str());
  if (!dir) {
    if (errno != ENOENT && error)
      *error = "cannot list " + impl_->directory + ": " + errorText(errno);
    return entries;
  }
  while (struct dirent *ent = ::readdir(dir)) {
    if (!isEntryName(ent->d_name))
      continue;
    CacheEntryInfo info;
    info.hash = ent->d_name;
    info.path = impl_->pathOf(info.hash);
    struct stat st;
    if (::lstat(info.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      continue; // removed meanwhile, or not ours
    info.size = uint64_t(st.st_size);
    info.modified = st.st_mtime;
    entries.push_back(std::move(info));
  }
  ::closedir(dir);
  return entries;
}

int KernelCache::sweepTemporaryFiles(std::chrono::seconds minAge,
                                     std::string *error) const {
  if (impl_->readOnly || impl_->directory.empty()) {
    if (error)
      *error = impl_->readOnly
                   ? "the kernel cache " + impl_->directory + " is read-only"
                   : impl_->noDirectory;
    return -1;
  }
  DIR *dir = ::opendir(impl_->directory.c_str());
  if (!dir) {
    if (errno == ENOENT)
      return 0;
    if (error)
      *error = "cannot list " + impl_->directory + ": " + errorText(errno);
    return -1;
  }
  std::time_t now = std::time(nullptr);
  int removed = 0;
  while (struct dirent *ent = ::readdir(dir)) {
    if (!isTemporaryName(ent->d_name))
      continue;
    std::string path = impl_->directory + "/" + ent->d_name;
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || now - st.st_mtime < minAge.count())
      continue;
    if (::unlink(path.c_str()) == 0)
      ++removed;
  }
  ::closedir(dir);
  return removed;
}

} // namespace attn::jit
