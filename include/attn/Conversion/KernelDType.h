//===- KernelDType.h - element types as the runtime names them --*- C++ -*-===//
//
// The one mapping from an MLIR element type to the runtime's dtype (and its
// name in #attn.kernel_info and the manifest): the outlining of kernels and
// the pipeline's manifest fields (a bias's type) both read it.
//
//===----------------------------------------------------------------------===//
#ifndef ATTN_CONVERSION_KERNELDTYPE_H
#define ATTN_CONVERSION_KERNELDTYPE_H

#include "attn/runtime/Reference.h"

#include "mlir/IR/BuiltinTypes.h"

#include <string>

namespace mlir::attn {

/// The runtime's dtype of `et`: bf16, f16, f8E4M3FN (e4m3), else f32.
inline ::attn::DType kernelDType(Type et) {
  return et.isBF16()                 ? ::attn::DType::BF16
         : et.isF16()                ? ::attn::DType::F16
         : isa<Float8E4M3FNType>(et) ? ::attn::DType::E4M3
                                     : ::attn::DType::F32;
}

/// Its name ("bf16", "f16", "e4m3", "f32").
inline std::string kernelDTypeName(Type et) {
  return ::attn::dtypeName(kernelDType(et));
}

} // namespace mlir::attn

#endif // ATTN_CONVERSION_KERNELDTYPE_H
