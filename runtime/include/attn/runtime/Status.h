//===- Status.h - error reporting of the attn runtime -----------*- C++ -*-===//
//
// Every fallible runtime call returns a Status: a code a program can branch
// on and a message a person can act on. The runtime throws no exceptions, so
// it can be linked into code built with -fno-exceptions (as LLVM is).
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_RUNTIME_STATUS_H
#define ATTN_RUNTIME_STATUS_H

#include <string>
#include <utility>

namespace attn {

/// The numeric values are the C API's attn_status codes.
enum class StatusCode : int {
  Ok = 0,
  InvalidArgument = 1, ///< the call's arguments break a rule
  Unsupported = 2,     ///< well formed, but this bundle or GPU cannot run it
  NoDriver = 3,        ///< no usable libcuda (missing, stub, too old)
  NoDevice = 4,        ///< a driver but no usable GPU
  BundleError = 5,     ///< the kernel bundle is missing or malformed
  CudaError = 6,       ///< a CUDA driver call failed
  Internal = 7,        ///< a bug or an exhausted host resource
  NotInBundle = 8,     ///< the bundle lacks the kernel and no compiler is set
};

/// "ok", "invalid argument", ...
const char *statusCodeName(StatusCode code);

class [[nodiscard]] Status {
public:
  Status() = default;
  static Status success() { return Status(); }
  static Status error(StatusCode code, std::string message) {
    Status s;
    s.code_ = code;
    s.message_ = std::move(message);
    return s;
  }

  bool ok() const { return code_ == StatusCode::Ok; }
  StatusCode code() const { return code_; }
  /// Empty when ok.
  const std::string &message() const { return message_; }

private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

} // namespace attn

#endif // ATTN_RUNTIME_STATUS_H
