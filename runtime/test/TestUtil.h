//===- TestUtil.h - helpers shared by the runtime tests ---------*- C++ -*-===//
#ifndef ATTN_RUNTIME_TEST_TESTUTIL_H
#define ATTN_RUNTIME_TEST_TESTUTIL_H

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

namespace attn {
namespace test {

/// A fresh directory under $TMPDIR, removed with its files at the end.
class TempDir {
public:
  TempDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string tmpl =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/attn-runtime-test-XXXXXX";
    if (char *p = mkdtemp(tmpl.data()))
      path_ = p;
    EXPECT_FALSE(path_.empty()) << "mkdtemp failed";
  }
  ~TempDir() {
    for (const std::string &f : files_)
      std::remove((path_ + "/" + f).c_str());
    if (!path_.empty())
      rmdir(path_.c_str());
  }
  const std::string &path() const { return path_; }
  void write(const std::string &name, const std::string &text) {
    std::ofstream(path_ + "/" + name, std::ios::binary) << text;
    files_.push_back(name);
  }

private:
  std::string path_;
  std::vector<std::string> files_;
};

} // namespace test
} // namespace attn

#endif // ATTN_RUNTIME_TEST_TESTUTIL_H
