//===- KernelCacheTest.cpp - the on-disk kernel cache ---------------------===//
//
// Every test works in its own fresh directory under $TMPDIR (or /tmp). The
// unwritable-directory tests must work as root, for whom permission bits
// stop nothing: a path through a regular file (ENOTDIR), an immutable
// directory (FS_IMMUTABLE_FL) or a read-only tmpfs, a file-size limit and a
// tiny tmpfs for a full disk.
//
//===----------------------------------------------------------------------===//
#include "attn/JIT/KernelCache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <ftw.h>
#include <linux/fs.h>
#include <map>
#include <mutex>
#include <optional>
#include <pwd.h>
#include <set>
#include <signal.h>
#include <sstream>
#include <string>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace attn::jit;

namespace {

constexpr size_t kHeaderSize = 88;

int removeOne(const char *path, const struct stat *, int, struct FTW *) {
  return ::remove(path);
}

/// A fresh directory, removed with its contents at the end.
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/attn-kc-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (::mkdtemp(buffer.data()))
      path_ = buffer.data();
  }
  ~TempDir() {
    if (!path_.empty())
      ::nftw(path_.c_str(), removeOne, 16, FTW_DEPTH | FTW_PHYS);
  }
  const std::string &path() const { return path_; }
  std::string operator/(const std::string &name) const {
    return path_ + "/" + name;
  }

private:
  std::string path_;
};

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream data;
  data << in.rdbuf();
  return data.str();
}

void writeFile(const std::string &path, const std::string &data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), std::streamsize(data.size()));
}

bool exists(const std::string &path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

std::set<std::string> listDir(const std::string &path) {
  std::set<std::string> names;
  if (DIR *dir = ::opendir(path.c_str())) {
    while (struct dirent *ent = ::readdir(dir))
      if (std::strcmp(ent->d_name, ".") && std::strcmp(ent->d_name, ".."))
        names.insert(ent->d_name);
    ::closedir(dir);
  }
  return names;
}

size_t countContaining(const std::set<std::string> &names,
                       const std::string &part) {
  size_t n = 0;
  for (const std::string &name : names)
    n += name.find(part) != std::string::npos;
  return n;
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

KernelCacheOptions at(const std::string &dir, bool readOnly = false) {
  KernelCacheOptions options;
  options.directory = dir;
  options.readOnly = readOnly;
  return options;
}

/// A compute function that counts its calls and returns `payload`.
ComputeFn counting(std::atomic<int> &calls, std::string payload) {
  return [&calls, payload](std::string &out, std::string &) {
    ++calls;
    out = payload;
    return true;
  };
}

ComputeFn mustNotRun() {
  return [](std::string &, std::string &error) {
    ADD_FAILURE() << "compute ran on a hit";
    error = "must not run";
    return false;
  };
}

/// Payload bytes of every value, NULs included.
std::string binaryPayload(size_t size) {
  std::string payload(size, '\0');
  for (size_t i = 0; i < size; ++i)
    payload[i] = char((i * 7 + i / 256) & 0xff);
  return payload;
}

//===----------------------------------------------------------------------===//
// SHA-256
//===----------------------------------------------------------------------===//

TEST(Sha256, FipsVectors) {
  // FIPS 180-2 appendix B and the NIST SHA examples.
  EXPECT_EQ(sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(
      sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(
      sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, PaddingBoundaries) {
  // Lengths where the padding needs one or two extra blocks (values from
  // Python's hashlib).
  const std::pair<size_t, const char *> cases[] = {
      {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
      {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
      {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
      {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
      {119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
      {120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
      {1000,
       "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"}};
  for (auto [length, hex] : cases)
    EXPECT_EQ(sha256Hex(std::string(length, 'a')), hex) << length;
  std::string all;
  for (int i = 0; i < 256; ++i)
    all.push_back(char(i));
  EXPECT_EQ(sha256Hex(all),
            "40aff2e9d2d8922e47afd4648e6967497158785fbd1da870e7110266bf944880");
}

//===----------------------------------------------------------------------===//
// Keys, round trips, format
//===----------------------------------------------------------------------===//

TEST(KernelCache, EntryPathIsTheKeysHash) {
  TempDir dir;
  KernelCache cache(at(dir.path()));
  EXPECT_EQ(cache.directory(), dir.path());
  EXPECT_EQ(
      cache.entryPath("abc"),
      dir.path() +
          "/ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // Stable: another cache on the same directory (spelled with a trailing
  // slash) agrees.
  KernelCache again(at(dir.path() + "/"));
  EXPECT_EQ(again.directory(), dir.path());
  EXPECT_EQ(again.entryPath("abc"), cache.entryPath("abc"));
  // Distinct for keys that differ by case, whitespace or a NUL.
  const std::string keys[] = {
      "k", "K", "k ", "k\n", std::string("k\0", 2), std::string("\0k", 2), ""};
  std::set<std::string> paths;
  for (const std::string &key : keys) {
    std::string path = cache.entryPath(key);
    EXPECT_EQ(path, dir.path() + "/" + sha256Hex(key));
    paths.insert(path);
  }
  EXPECT_EQ(paths.size(), std::size(keys));
}

TEST(KernelCache, RoundTrip) {
  TempDir dir;
  KernelCache cache(at(dir.path()));
  EXPECT_EQ(cache.lookup("key").status, LookupStatus::Miss);
  std::string error;
  ASSERT_TRUE(cache.store("key", "payload one", &error)) << error;
  LookupResult found = cache.lookup("key");
  ASSERT_TRUE(found.hit()) << found.reason;
  EXPECT_EQ(found.payload, "payload one");

  // getOrCreate serves the stored entry without computing.
  CacheResult r = cache.getOrCreate("key", mustNotRun());
  EXPECT_EQ(r.outcome, CacheOutcome::Hit);
  EXPECT_EQ(r.payload, "payload one");
  EXPECT_TRUE(r.corruption.empty());

  // Another cache object (say, another process) reads it as well.
  KernelCache other(at(dir.path()));
  EXPECT_EQ(other.lookup("key").payload, "payload one");

  // A store replaces the entry; still one file.
  ASSERT_TRUE(cache.store("key", "payload two", &error)) << error;
  EXPECT_EQ(cache.lookup("key").payload, "payload two");
  std::vector<CacheEntryInfo> entries = cache.list();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].hash, sha256Hex("key"));
  EXPECT_EQ(entries[0].path, cache.entryPath("key"));

  // remove: the entry goes, a second remove finds nothing to do.
  EXPECT_TRUE(cache.remove("key", &error)) << error;
  EXPECT_FALSE(exists(cache.entryPath("key")));
  EXPECT_EQ(cache.lookup("key").status, LookupStatus::Miss);
  EXPECT_TRUE(cache.remove("key", &error)) << error;
}

TEST(KernelCache, EntryHoldsHeaderKeyAndPayloadVerbatim) {
  TempDir dir;
  KernelCache cache(at(dir.path()));
  std::string key = std::string("canonical IR\0sm_80\nv1", 21);
  std::string payload = binaryPayload(3 * 256 + 5);
  ASSERT_TRUE(cache.store(key, payload));
  std::string file = readFile(cache.entryPath(key));
  ASSERT_EQ(file.size(), kHeaderSize + key.size() + payload.size());
  EXPECT_EQ(file.substr(0, 8), "ATTN-KC\n");
  EXPECT_EQ(file[8], 1); // format version, little-endian
  EXPECT_EQ(file.substr(kHeaderSize, key.size()), key);
  EXPECT_EQ(file.substr(kHeaderSize + key.size()), payload);
  EXPECT_EQ(cache.lookup(key).payload, payload);

  // An empty payload is a valid entry.
  ASSERT_TRUE(cache.store("empty", ""));
  LookupResult empty = cache.lookup("empty");
  EXPECT_TRUE(empty.hit()) << empty.reason;
  EXPECT_EQ(empty.payload, "");
}

TEST(KernelCache, ComputeRunsOnMissAndStores) {
  TempDir dir;
  KernelCache cache(at(dir.path()));
  std::atomic<int> calls{0};
  CacheResult r = cache.getOrCreate("k", counting(calls, "compiled"));
  EXPECT_EQ(r.outcome, CacheOutcome::Stored) << cacheOutcomeName(r.outcome);
  EXPECT_EQ(r.payload, "compiled");
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(r.waited);
  r = cache.getOrCreate("k", counting(calls, "other"));
  EXPECT_EQ(r.outcome, CacheOutcome::Hit);
  EXPECT_EQ(r.payload, "compiled");
  EXPECT_EQ(calls, 1);
}

TEST(KernelCache, FailedComputeIsReportedAndNotCached) {
  TempDir dir;
  KernelCache cache(at(dir.path()));
  int calls = 0;
  auto failing = [&](std::string &, std::string &error) {
    ++calls;
    error = "ptxas: out of registers";
    return false;
  };
  CacheResult r = cache.getOrCreate("k", failing);
  EXPECT_EQ(r.outcome, CacheOutcome::Failed);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error, "ptxas: out of registers");
  EXPECT_TRUE(cache.list().empty());
  // The next call tries again.
  r = cache.getOrCreate("k", failing);
  EXPECT_EQ(calls, 2);
}

//===----------------------------------------------------------------------===//
// Bad entries
//===----------------------------------------------------------------------===//

struct GoodEntry {
  std::string key = "corruption-test key";
  std::string payload = binaryPayload(64);
  std::string bytes; ///< the file a store writes
};

GoodEntry makeGoodEntry(KernelCache &cache) {
  GoodEntry entry;
  EXPECT_TRUE(cache.store(entry.key, entry.payload));
  entry.bytes = readFile(cache.entryPath(entry.key));
  EXPECT_EQ(entry.bytes.size(),
            kHeaderSize + entry.key.size() + entry.payload.size());
  return entry;
}

TEST(KernelCache, TruncatedEntriesAreDetectedRemovedAndRebuilt) {
  TempDir dir;
  KernelCache cache(at(dir.path()));
  GoodEntry good = makeGoodEntry(cache);
  size_t keyEnd = kHeaderSize + good.key.size();
  const std::pair<size_t, const char *> cuts[] = {
      {0, "empty file"},
      {1, "inside the header"},
      {8, "inside the header"},
      {kHeaderSize - 1, "inside the header"},
      {kHeaderSize, "inside the key"},
      {kHeaderSize + good.key.size() / 2, "inside the key"},
      {keyEnd, "inside the payload"},
      {keyEnd + 1, "inside the payload"},
      {good.bytes.size() - 1, "inside the payload"}};
  std::string path = cache.entryPath(good.key);
  for (auto [length, why] : cuts) {
    SCOPED_TRACE("truncated to " + std::to_string(length));
    writeFile(path, good.bytes.substr(0, length));
    LookupResult found = cache.lookup(good.key);
    EXPECT_EQ(found.status, LookupStatus::Corrupt);
    EXPECT_TRUE(contains(found.reason, why)) << found.reason;
    EXPECT_TRUE(found.removed);
    EXPECT_FALSE(exists(path));

    // getOrCreate reports it and rebuilds it.
    writeFile(path, good.bytes.substr(0, length));
    std::atomic<int> calls{0};
    CacheResult r = cache.getOrCreate(good.key, counting(calls, good.payload));
    EXPECT_EQ(r.outcome, CacheOutcome::Stored) << cacheOutcomeName(r.outcome);
    EXPECT_EQ(calls, 1);
    EXPECT_TRUE(contains(r.corruption, why)) << r.corruption;
    EXPECT_EQ(readFile(path), good.bytes);
  }
}

TEST(KernelCache, EveryFlippedByteIsDetected) {
  TempDir dir;
  KernelCache cache(at(dir.path()));
  GoodEntry good = makeGoodEntry(cache);
  std::string path = cache.entryPath(good.key);
  size_t keyEnd = kHeaderSize + good.key.size();
  for (size_t offset = 0; offset < good.bytes.size(); ++offset) {
    SCOPED_TRACE("byte " + std::to_string(offset));
    std::string bad = good.bytes;
    bad[offset] = char(bad[offset] ^ 0xff);
    writeFile(path, bad);
    LookupResult found = cache.lookup(good.key);
    ASSERT_EQ(found.status, LookupStatus::Corrupt);
    EXPECT_TRUE(found.removed);
    EXPECT_FALSE(exists(path));
    // The reason names the part that changed.
    const char *why = offset < 8             ? "bad magic"
                      : offset < 12          ? "format version"
                      : offset < kHeaderSize ? "header checksum"
                      : offset < keyEnd      ? "key mismatch"
                                             : "payload checksum";
    EXPECT_TRUE(contains(found.reason, why)) << found.reason;
  }
  // A version from a later format is named as such.
  std::string later = good.bytes;
  later[8] = 2;
  writeFile(path, later);
  EXPECT_TRUE(
      contains(cache.lookup(good.key).reason, "format version 2, expected 1"));
  // So are bytes past the payload.
  writeFile(path, good.bytes + "x");
  EXPECT_TRUE(contains(cache.lookup(good.key).reason, "1 trailing bytes"));

  // getOrCreate rebuilds a flipped payload byte.
  std::string bad = good.bytes;
  bad.back() = char(bad.back() ^ 1);
  writeFile(path, bad);
  std::atomic<int> calls{0};
  CacheResult r = cache.getOrCreate(good.key, counting(calls, good.payload));
  EXPECT_EQ(r.outcome, CacheOutcome::Stored);
  EXPECT_TRUE(contains(r.corruption, "payload checksum")) << r.corruption;
  EXPECT_EQ(readFile(path), good.bytes);
}

TEST(KernelCache, EntryOfAnotherKeyIsAMismatchNotAHit) {
  TempDir dir;
  KernelCache cache(at(dir.path()));
  ASSERT_TRUE(cache.store("key A", "payload of A"));
  // As if key B's hash collided with A's: A's entry under B's name.
  writeFile(cache.entryPath("key B"), readFile(cache.entryPath("key A")));
  LookupResult found = cache.lookup("key B");
  EXPECT_EQ(found.status, LookupStatus::Corrupt);
  EXPECT_TRUE(contains(found.reason, "key mismatch")) << found.reason;
  EXPECT_TRUE(found.removed);
  EXPECT_EQ(cache.lookup("key A").payload, "payload of A");

  writeFile(cache.entryPath("key B"), readFile(cache.entryPath("key A")));
  std::atomic<int> calls{0};
  CacheResult r = cache.getOrCreate("key B", counting(calls, "payload of B"));
  EXPECT_EQ(r.outcome, CacheOutcome::Stored);
  EXPECT_TRUE(contains(r.corruption, "key mismatch")) << r.corruption;
  EXPECT_EQ(cache.lookup("key B").payload, "payload of B");
  EXPECT_EQ(cache.lookup("key A").payload, "payload of A");
}

TEST(KernelCache, UnreadableEntryIsReportedAndLeftAlone) {
  TempDir dir;
  KernelCache cache(at(dir.path()));
  // A directory where the entry should be: nothing can read or replace it.
  ASSERT_EQ(::mkdir(cache.entryPath("k").c_str(), 0700), 0);
  LookupResult found = cache.lookup("k");
  EXPECT_EQ(found.status, LookupStatus::Unreadable);
  EXPECT_TRUE(contains(found.reason, "not a regular file")) << found.reason;
  std::atomic<int> calls{0};
  CacheResult r = cache.getOrCreate("k", counting(calls, "p"));
  EXPECT_EQ(r.outcome, CacheOutcome::NotStored);
  EXPECT_EQ(r.payload, "p");
  EXPECT_FALSE(r.corruption.empty());
  EXPECT_TRUE(contains(r.storeError, "cannot rename")) << r.storeError;
  EXPECT_EQ(countContaining(listDir(dir.path()), ".tmp."), 0u);
}

TEST(KernelCache, TemporaryFilesAreIgnoredAndSwept) {
  TempDir dir;
  KernelCache cache(at(dir.path()));
  GoodEntry good = makeGoodEntry(cache);
  std::string hash = sha256Hex(good.key);
  ASSERT_TRUE(cache.remove(good.key));
  // Crashed writers' leftovers: a whole entry and a partial one.
  std::string whole = dir / (hash + ".tmp.4242.4243.00000000deadbeef");
  std::string partial = dir / (hash + ".tmp.4242.4244.00000000feedface");
  writeFile(whole, good.bytes);
  writeFile(partial, good.bytes.substr(0, 50));
  EXPECT_EQ(cache.lookup(good.key).status, LookupStatus::Miss);
  EXPECT_TRUE(cache.list().empty());

  std::atomic<int> calls{0};
  CacheResult r = cache.getOrCreate(good.key, counting(calls, good.payload));
  EXPECT_EQ(r.outcome, CacheOutcome::Stored);
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(r.corruption.empty());
  EXPECT_EQ(cache.list().size(), 1u);

  // Young temporary files may be a live writer's: kept.
  std::string error;
  EXPECT_EQ(cache.sweepTemporaryFiles(std::chrono::hours(1), &error), 0)
      << error;
  EXPECT_TRUE(exists(whole) && exists(partial));
  // Two hours old: swept; the entry and the lock file stay.
  struct timespec old[2];
  old[0].tv_sec = old[1].tv_sec = std::time(nullptr) - 7200;
  old[0].tv_nsec = old[1].tv_nsec = 0;
  ASSERT_EQ(::utimensat(AT_FDCWD, whole.c_str(), old, 0), 0);
  ASSERT_EQ(::utimensat(AT_FDCWD, partial.c_str(), old, 0), 0);
  EXPECT_EQ(cache.sweepTemporaryFiles(std::chrono::hours(1), &error), 2)
      << error;
  EXPECT_EQ(listDir(dir.path()), (std::set<std::string>{hash, hash + ".lock"}));
  EXPECT_EQ(cache.lookup(good.key).payload, good.payload);
}

//===----------------------------------------------------------------------===//
// Unwritable caches
//===----------------------------------------------------------------------===//

TEST(KernelCache, PathBelowARegularFileCannotStore) {
  TempDir dir;
  std::string file = dir / "file";
  writeFile(file, "not a directory");
  KernelCache cache(at(file + "/cache"));
  std::string error;
  EXPECT_FALSE(cache.store("k", "p", &error));
  EXPECT_TRUE(contains(error, file + "/cache")) << error;
  EXPECT_TRUE(contains(error, "Not a directory")) << error;
  EXPECT_EQ(cache.lookup("k").status, LookupStatus::Miss);
  std::atomic<int> calls{0};
  CacheResult r = cache.getOrCreate("k", counting(calls, "in memory"));
  EXPECT_EQ(r.outcome, CacheOutcome::NotStored);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.payload, "in memory");
  EXPECT_TRUE(contains(r.storeError, "Not a directory")) << r.storeError;
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(cache.list().empty());
  EXPECT_EQ(readFile(file), "not a directory");
}

/// Makes a directory unwritable by a way that stops root too: the immutable
/// attribute, else a read-only tmpfs mounted on it, else (not root) mode
/// 0555. `populate` fills it first. Undone by the destructor.
class UnwritableDir {
public:
  UnwritableDir(const std::string &path, const std::function<void()> &populate)
      : path_(path) {
    populate();
    if (setImmutable(true) && !probeWrite()) {
      method_ = "FS_IMMUTABLE_FL";
      return;
    }
    setImmutable(false);
    if (::mount("tmpfs", path.c_str(), "tmpfs", 0, "size=1m,mode=0700") == 0) {
      populate();
      if (::mount("tmpfs", path.c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY,
                  nullptr) == 0 &&
          !probeWrite()) {
        method_ = "read-only tmpfs";
        mounted_ = true;
        return;
      }
      ::umount(path.c_str());
    }
    if (::geteuid() != 0 && ::chmod(path.c_str(), 0555) == 0 && !probeWrite()) {
      method_ = "chmod 0555";
      chmodded_ = true;
      return;
    }
    ::chmod(path.c_str(), 0700);
  }
  ~UnwritableDir() {
    if (method_ == "FS_IMMUTABLE_FL")
      setImmutable(false);
    if (mounted_)
      ::umount(path_.c_str());
    if (chmodded_)
      ::chmod(path_.c_str(), 0700);
  }
  /// "" if no way worked.
  const std::string &method() const { return method_; }

private:
  bool setImmutable(bool on) {
    int fd = ::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
      return false;
    int flags = 0;
    bool ok = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
    if (ok) {
      flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
      ok = ::ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
    }
    ::close(fd);
    return ok;
  }
  bool probeWrite() {
    std::string probe = path_ + "/.probe";
    int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
      return false;
    ::close(fd);
    ::unlink(probe.c_str());
    return true;
  }

  std::string path_;
  std::string method_;
  bool mounted_ = false;
  bool chmodded_ = false;
};

TEST(KernelCache, ReadOnlyDirectoryServesLookupsAndCannotStore) {
  TempDir dir;
  std::string cacheDir = dir / "cache";
  ASSERT_EQ(::mkdir(cacheDir.c_str(), 0700), 0);
  KernelCache cache(at(cacheDir));
  std::string badPath;
  UnwritableDir unwritable(cacheDir, [&] {
    ASSERT_TRUE(cache.store("present", "payload"));
    ASSERT_TRUE(cache.store("bad", "payload"));
    badPath = cache.entryPath("bad");
    writeFile(badPath, readFile(badPath).substr(0, 20));
  });
  if (unwritable.method().empty())
    GTEST_SKIP() << "no way to make a directory unwritable here (not "
                    "FS_IMMUTABLE_FL, a tmpfs mount, or chmod as non-root)";
  SCOPED_TRACE("made read-only with " + unwritable.method());
  std::set<std::string> before = listDir(cacheDir);

  EXPECT_EQ(cache.lookup("present").payload, "payload");
  std::string error;
  EXPECT_FALSE(cache.store("new", "p", &error));
  EXPECT_TRUE(contains(error, "cannot create")) << error;
  // A bad entry is reported; it cannot be removed.
  LookupResult bad = cache.lookup("bad");
  EXPECT_EQ(bad.status, LookupStatus::Corrupt);
  EXPECT_FALSE(bad.removed);

  std::atomic<int> calls{0};
  CacheResult r = cache.getOrCreate("new", counting(calls, "in memory"));
  EXPECT_EQ(r.outcome, CacheOutcome::NotStored);
  EXPECT_EQ(r.payload, "in memory");
  EXPECT_FALSE(r.storeError.empty());
  EXPECT_EQ(calls, 1);
  r = cache.getOrCreate("bad", counting(calls, "rebuilt"));
  EXPECT_EQ(r.outcome, CacheOutcome::NotStored);
  EXPECT_EQ(r.payload, "rebuilt");
  EXPECT_TRUE(contains(r.corruption, "truncated")) << r.corruption;
  EXPECT_EQ(listDir(cacheDir), before);
}

TEST(KernelCache, ReadOnlyModeOnlyLooksUp) {
  TempDir dir;
  {
    KernelCache writer(at(dir.path()));
    ASSERT_TRUE(writer.store("present", "payload"));
    ASSERT_TRUE(writer.store("bad", "payload"));
    writeFile(writer.entryPath("bad"), "garbage");
  }
  std::set<std::string> before = listDir(dir.path());
  KernelCache cache(at(dir.path(), /*readOnly=*/true));
  EXPECT_TRUE(cache.readOnly());
  EXPECT_EQ(cache.lookup("present").payload, "payload");
  std::string error;
  EXPECT_FALSE(cache.store("new", "p", &error));
  EXPECT_TRUE(contains(error, "read-only")) << error;
  EXPECT_FALSE(cache.remove("present", &error));
  EXPECT_TRUE(contains(error, "read-only")) << error;
  EXPECT_EQ(cache.sweepTemporaryFiles(std::chrono::seconds(0), &error), -1);
  LookupResult bad = cache.lookup("bad");
  EXPECT_EQ(bad.status, LookupStatus::Corrupt);
  EXPECT_FALSE(bad.removed);

  std::atomic<int> calls{0};
  CacheResult r = cache.getOrCreate("new", counting(calls, "in memory"));
  EXPECT_EQ(r.outcome, CacheOutcome::NotStored);
  EXPECT_EQ(r.payload, "in memory");
  EXPECT_TRUE(contains(r.storeError, "read-only")) << r.storeError;
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(cache.getOrCreate("present", mustNotRun()).outcome,
            CacheOutcome::Hit);
  // Nothing written: no entry, no lock file; the bad entry is still there.
  EXPECT_EQ(listDir(dir.path()), before);

  // Nor is a missing directory created.
  KernelCache absent(at(dir / "absent", /*readOnly=*/true));
  EXPECT_EQ(absent.getOrCreate("k", counting(calls, "x")).outcome,
            CacheOutcome::NotStored);
  EXPECT_FALSE(exists(dir / "absent"));
}

/// Runs `body` in a child process; its exit status (0: passed).
int inChild(const std::function<int()> &body) {
  pid_t pid = ::fork();
  if (pid == 0)
    ::_exit(body());
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid)
    return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(KernelCache, FileSizeLimitFailsTheStoreCleanly) {
  // RLIMIT_FSIZE makes writes past it fail with EFBIG, for root too, like a
  // full disk part-way through an entry. In a child: the limit is
  // process-wide.
  TempDir dir;
  std::string path = dir.path();
  int status = inChild([&] {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = {16384, 16384};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0)
      return 10;
    KernelCache cache(at(path));
    std::string error;
    if (cache.store("big", binaryPayload(65536), &error))
      return 11;
    if (!contains(error, "File too large") || !contains(error, ".tmp."))
      return 12;
    CacheResult r = cache.getOrCreate("big", [](std::string &p, std::string &) {
      p = binaryPayload(65536);
      return true;
    });
    if (r.outcome != CacheOutcome::NotStored || r.payload.size() != 65536)
      return 13;
    if (!cache.store("small", "fits"))
      return 14;
    return 0;
  });
  EXPECT_EQ(status, 0);
  // No half-written file is left: the small entry and the lock file only.
  EXPECT_EQ(listDir(path), (std::set<std::string>{sha256Hex("small"),
                                                  sha256Hex("big") + ".lock"}));
}

TEST(KernelCache, FullDiskFailsTheStoreCleanly) {
  TempDir dir;
  std::string mountPoint = dir / "small";
  ASSERT_EQ(::mkdir(mountPoint.c_str(), 0700), 0);
  if (::mount("tmpfs", mountPoint.c_str(), "tmpfs", 0, "size=64k") != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here: " << std::strerror(errno);
  KernelCache cache(at(mountPoint + "/cache"));
  std::string error;
  EXPECT_FALSE(cache.store("big", binaryPayload(1 << 20), &error));
  EXPECT_TRUE(contains(error, "No space left on device")) << error;
  EXPECT_EQ(countContaining(listDir(mountPoint + "/cache"), ".tmp."), 0u);
  // The space of the failed write was given back.
  EXPECT_TRUE(cache.store("small", binaryPayload(16384), &error)) << error;
  EXPECT_EQ(cache.lookup("small").payload, binaryPayload(16384));
  ::umount(mountPoint.c_str());
}

//===----------------------------------------------------------------------===//
// Concurrency
//===----------------------------------------------------------------------===//

/// Releases all waiting threads at once.
class StartLine {
public:
  explicit StartLine(int n) : remaining_(n) {}
  void arriveAndWait() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (--remaining_ == 0)
      go_.notify_all();
    else
      go_.wait(lock, [&] { return remaining_ == 0; });
  }

private:
  std::mutex mutex_;
  std::condition_variable go_;
  int remaining_;
};

TEST(KernelCache, SixteenThreadsOneKeyComputeOnce) {
  TempDir dir;
  KernelCache cache(at(dir.path()));
  constexpr int kThreads = 16;
  std::atomic<int> calls{0};
  StartLine start(kThreads);
  std::vector<CacheResult> results(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      start.arriveAndWait();
      results[i] = cache.getOrCreate(
          "shared key", [&](std::string &payload, std::string &) {
            ++calls;
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            payload = binaryPayload(4096);
            return true;
          });
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(calls, 1);
  std::map<CacheOutcome, int> outcomes;
  for (const CacheResult &r : results) {
    EXPECT_EQ(r.payload, binaryPayload(4096));
    ++outcomes[r.outcome];
  }
  EXPECT_EQ(outcomes[CacheOutcome::Stored], 1);
  EXPECT_EQ(outcomes[CacheOutcome::Stored] + outcomes[CacheOutcome::Shared] +
                outcomes[CacheOutcome::Hit],
            kThreads);
  EXPECT_EQ(listDir(dir.path()),
            (std::set<std::string>{sha256Hex("shared key"),
                                   sha256Hex("shared key") + ".lock"}));
}

TEST(KernelCache, SingleFlightWithoutDiskOrLock) {
  // A read-only cache stores nothing and takes no lock, so only the
  // in-process single flight keeps the 16 callers to one computation.
  TempDir dir;
  KernelCache cache(at(dir.path(), /*readOnly=*/true));
  constexpr int kThreads = 16;
  std::atomic<int> calls{0};
  StartLine start(kThreads);
  std::vector<CacheResult> results(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      start.arriveAndWait();
      results[i] =
          cache.getOrCreate("key", [&](std::string &payload, std::string &) {
            ++calls;
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            payload = "in memory";
            return true;
          });
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(calls, 1);
  std::map<CacheOutcome, int> outcomes;
  for (const CacheResult &r : results) {
    EXPECT_EQ(r.payload, "in memory");
    ++outcomes[r.outcome];
  }
  EXPECT_EQ(outcomes[CacheOutcome::NotStored], 1);
  EXPECT_EQ(outcomes[CacheOutcome::Shared], kThreads - 1);
  EXPECT_TRUE(listDir(dir.path()).empty());

  // A failure is shared too, and not remembered afterwards.
  std::vector<CacheResult> failures(4);
  StartLine again(4);
  threads.clear();
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      again.arriveAndWait();
      failures[i] =
          cache.getOrCreate("bad", [&](std::string &, std::string &error) {
            ++calls;
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            error = "does not compile";
            return false;
          });
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(calls, 2);
  for (const CacheResult &r : failures) {
    EXPECT_EQ(r.outcome, CacheOutcome::Failed);
    EXPECT_EQ(r.error, "does not compile");
  }
}

TEST(KernelCache, DifferentKeysComputeInParallel) {
  TempDir dir;
  KernelCache cache(at(dir.path()));
  constexpr int kThreads = 16, kKeys = 8;
  std::atomic<int> calls[kKeys] = {};
  std::atomic<int> running{0}, maxRunning{0};
  StartLine start(kThreads);
  std::vector<CacheResult> results(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      int k = i % kKeys;
      start.arriveAndWait();
      results[i] = cache.getOrCreate(
          "key " + std::to_string(k),
          [&, k](std::string &payload, std::string &) {
            ++calls[k];
            int now = ++running;
            int seen = maxRunning;
            while (now > seen && !maxRunning.compare_exchange_weak(seen, now))
              ;
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            --running;
            payload = "payload " + std::to_string(k);
            return true;
          });
    });
  for (std::thread &t : threads)
    t.join();
  for (int k = 0; k < kKeys; ++k)
    EXPECT_EQ(calls[k], 1) << "key " << k;
  for (int i = 0; i < kThreads; ++i)
    EXPECT_EQ(results[i].payload, "payload " + std::to_string(i % kKeys));
  // One key's computation does not hold up another's.
  EXPECT_GE(maxRunning, 2);
  EXPECT_EQ(cache.list().size(), size_t(kKeys));
  EXPECT_EQ(countContaining(listDir(dir.path()), ".tmp."), 0u);
}

TEST(KernelCache, ReadersNeverSeeAPartialEntry) {
  // Writers replace a large entry over and over while readers look it up:
  // every lookup finds no entry or one of the whole payloads.
  TempDir dir;
  KernelCache cache(at(dir.path()));
  const std::string payloads[2] = {std::string(1 << 20, 'a'),
                                   std::string((1 << 20) + 4096, 'b')};
  std::atomic<bool> stop{false};
  std::atomic<int> hits{0}, bad{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; ++w)
    threads.emplace_back([&, w] {
      for (int i = 0; i < 20; ++i)
        EXPECT_TRUE(cache.store("key", payloads[(w + i) % 2]));
    });
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&] {
      while (!stop) {
        LookupResult found = cache.lookup("key");
        if (found.hit() &&
            (found.payload == payloads[0] || found.payload == payloads[1]))
          ++hits;
        else if (found.status != LookupStatus::Miss)
          ++bad;
      }
    });
  threads[0].join();
  threads[1].join();
  stop = true;
  threads[2].join();
  threads[3].join();
  EXPECT_EQ(bad, 0);
  EXPECT_GT(hits, 0);
  EXPECT_EQ(listDir(dir.path()), std::set<std::string>{sha256Hex("key")});
}

TEST(KernelCache, FourProcessesOneKeyComputeOnce) {
  TempDir dir;
  std::string counter = dir / "computations";
  std::string cacheDir = dir / "cache";
  constexpr int kProcesses = 4;
  // Children block reading this pipe until the parent closes it, so that
  // they ask at the same moment.
  int startPipe[2];
  ASSERT_EQ(::pipe(startPipe), 0);
  std::vector<pid_t> children;
  for (int i = 0; i < kProcesses; ++i) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(startPipe[1]);
      char byte;
      (void)::read(startPipe[0], &byte, 1);
      KernelCache cache(at(cacheDir));
      CacheResult r = cache.getOrCreate(
          "cross-process key", [&](std::string &payload, std::string &) {
            int fd = ::open(counter.c_str(),
                            O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
            (void)::write(fd, "x", 1);
            ::close(fd);
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            payload = binaryPayload(10000);
            return true;
          });
      if (r.payload != binaryPayload(10000))
        ::_exit(10);
      ::_exit(r.outcome == CacheOutcome::Stored ? 0
              : r.outcome == CacheOutcome::Hit  ? 1
                                                : 11);
    }
    children.push_back(pid);
  }
  ::close(startPipe[0]);
  ::close(startPipe[1]);
  std::map<int, int> exits;
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    ++exits[WEXITSTATUS(status)];
  }
  EXPECT_EQ(exits[0], 1) << "one process computes and stores";
  EXPECT_EQ(exits[1], kProcesses - 1) << "the others read its entry";
  EXPECT_EQ(readFile(counter), "x");
  std::string hash = sha256Hex("cross-process key");
  EXPECT_EQ(listDir(cacheDir), (std::set<std::string>{hash, hash + ".lock"}));
  KernelCache cache(at(cacheDir));
  EXPECT_EQ(cache.lookup("cross-process key").payload, binaryPayload(10000));
}

//===----------------------------------------------------------------------===//
// Default directory
//===----------------------------------------------------------------------===//

/// Restores the variables the default directory reads.
class EnvGuard {
public:
  EnvGuard() {
    for (const char *name : kNames)
      if (const char *value = std::getenv(name))
        saved_[name] = value;
  }
  ~EnvGuard() {
    for (const char *name : kNames) {
      auto it = saved_.find(name);
      if (it == saved_.end())
        ::unsetenv(name);
      else
        ::setenv(name, it->second.c_str(), 1);
    }
  }
  static void set(const char *name, const char *value) {
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }

private:
  static constexpr const char *kNames[] = {"ATTN_CACHE_DIR", "XDG_CACHE_HOME",
                                           "HOME"};
  std::map<std::string, std::string> saved_;
};

TEST(KernelCache, DefaultDirectoryFromEnvironment) {
  EnvGuard guard;
  EnvGuard::set("ATTN_CACHE_DIR", "/explicit/cache");
  EnvGuard::set("XDG_CACHE_HOME", "/xdg");
  EnvGuard::set("HOME", "/home/user");
  EXPECT_EQ(defaultCacheDirectory(), "/explicit/cache");
  EXPECT_EQ(KernelCache().directory(), "/explicit/cache");
  // An explicit option wins over the environment.
  EXPECT_EQ(KernelCache(at("/option/dir")).directory(), "/option/dir");

  EnvGuard::set("ATTN_CACHE_DIR", ""); // empty counts as unset
  EXPECT_EQ(defaultCacheDirectory(), "/xdg/attn");
  EnvGuard::set("ATTN_CACHE_DIR", nullptr);
  EXPECT_EQ(defaultCacheDirectory(), "/xdg/attn");
  EnvGuard::set("XDG_CACHE_HOME", "relative/cache"); // invalid per XDG
  EXPECT_EQ(defaultCacheDirectory(), "/home/user/.cache/attn");
  EnvGuard::set("XDG_CACHE_HOME", nullptr);
  EXPECT_EQ(defaultCacheDirectory(), "/home/user/.cache/attn");

  EnvGuard::set("HOME", nullptr);
  std::string why;
  std::string dir = defaultCacheDirectory(&why);
  struct passwd *pw = ::getpwuid(::getuid());
  if (pw && pw->pw_dir && *pw->pw_dir) {
    EXPECT_EQ(dir, std::string(pw->pw_dir) + "/.cache/attn");
  } else {
    EXPECT_EQ(dir, "");
    EXPECT_TRUE(contains(why, "ATTN_CACHE_DIR")) << why;
  }
}

TEST(KernelCache, DefaultDirectoryIsCreatedOnFirstStore) {
  EnvGuard guard;
  TempDir dir;
  std::string cacheDir = dir / "a/b/attn";
  EnvGuard::set("ATTN_CACHE_DIR", cacheDir.c_str());
  KernelCache cache;
  EXPECT_EQ(cache.directory(), cacheDir);
  EXPECT_EQ(cache.lookup("k").status, LookupStatus::Miss);
  EXPECT_FALSE(exists(dir / "a")); // a lookup creates nothing
  std::atomic<int> calls{0};
  EXPECT_EQ(cache.getOrCreate("k", counting(calls, "p")).outcome,
            CacheOutcome::Stored);
  struct stat st;
  ASSERT_EQ(::stat(cacheDir.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat((dir / "a").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_TRUE(exists(cache.entryPath("k")));
}

} // namespace
