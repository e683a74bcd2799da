//===- AttnDialect.cpp - attn dialect ---------------------------*- C++ -*-===//
#include "attn/Dialect/Attn/IR/AttnDialect.h"
#include "attn/Dialect/Attn/IR/AttnOps.h"
#include "attn/runtime/Chips.h"
#include "attn/runtime/KernelABI.h"
#include "attn/runtime/Reference.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::attn;

#include "attn/Dialect/Attn/IR/AttnEnums.cpp.inc"
#include "attn/Dialect/Attn/IR/AttnOpsDialect.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "attn/Dialect/Attn/IR/AttnAttrs.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "attn/Dialect/Attn/IR/AttnTypes.cpp.inc"

void AttnDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "attn/Dialect/Attn/IR/AttnOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "attn/Dialect/Attn/IR/AttnAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "attn/Dialect/Attn/IR/AttnTypes.cpp.inc"
      >();
}

// A known target: "cpu" or a chip of attn's chip table (Chips.h). For the
// CPU the "shared memory" is the data cache a tile should stay inside (L2
// of a core).
TargetAttr TargetAttr::getKnown(MLIRContext *ctx, StringRef name) {
  if (name == "cpu")
    return TargetAttr::get(ctx, "cpu", 1 << 20, 1);
  if (const ::attn::ChipInfo *chip = ::attn::findChip(name))
    return TargetAttr::get(ctx, name, chip->smemPerBlock, chip->numSms);
  return {};
}

std::string mlir::attn::defaultChip() {
  return std::string(::attn::kDefaultChip);
}

LogicalResult KernelInfoAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, int64_t blockM,
    int64_t blockN, int64_t threads, int64_t smemBytes, int64_t headDim,
    int64_t headDimV, StringRef dtype, bool causal, StringRef program,
    ArrayAttr grid, ArrayRef<int64_t> tensorMaps, int64_t registerEstimate,
    bool dynamicRowStride, int64_t windowLeft, int64_t windowRight,
    FloatAttr softcap, bool persistent, bool tileCounter,
    bool dependentLaunch) {
  if (persistent && !grid)
    return emitError() << "a persistent kernel needs its grid of tiles (grid)";
  if (tileCounter && !persistent)
    return emitError() << "a tile counter belongs to a persistent kernel "
                          "(persistent = true)";
  if (softcap && (!softcap.getType().isF32() ||
                  !::attn::isValidSoftcap(softcap.getValueAsDouble())))
    return emitError() << "softcap must be a positive, finite, normal f32, got "
                       << softcap;
  if (windowLeft < -1 || windowRight < -1 || windowLeft > INT32_MAX ||
      windowRight > INT32_MAX)
    return emitError() << "window_left and window_right must be -1 (none) or "
                          "in [0, 2^31), got "
                       << windowLeft << " and " << windowRight;
  if (blockM < 0 || blockN < 0 || headDim < 0 || headDimV < 0)
    return emitError() << "block_m, block_n, head_dim and head_dim_v must be "
                          "non-negative, got "
                       << blockM << ", " << blockN << ", " << headDim << " and "
                       << headDimV;
  if (threads <= 0 || threads % 32 || threads > 1024)
    return emitError() << "threads must be a multiple of 32 in [32, 1024], got "
                       << threads;
  if (smemBytes < 0 || smemBytes > INT32_MAX)
    return emitError() << "smem_bytes must be in [0, 2^31), got " << smemBytes;
  ::attn::DType dt;
  if (!dtype.empty() && !::attn::parseDType(dtype.str(), dt))
    return emitError() << "unknown dtype '" << dtype
                       << "' (expected bf16, f16 or f32)";
  ::attn::Program p;
  if (!::attn::parseProgram(program.str(), p))
    return emitError() << "unknown program '" << program << "' (expected "
                       << ::attn::programNamesText() << ")";
  if (grid) {
    std::string text;
    for (auto [i, d] : llvm::enumerate(grid)) {
      auto s = dyn_cast<StringAttr>(d);
      if (!s)
        return emitError() << "grid must be an array of strings";
      text += (i ? "," : "") + s.str();
    }
    ::attn::LaunchGrid g;
    if (grid.size() != 3 || !::attn::parseLaunchGrid(text, g))
      return emitError() << "grid must be three products of the launch grid "
                            "factors (x, y, z), got "
                         << grid;
  }
  if (tensorMaps.size() % 3)
    return emitError()
           << "tensor_maps must be (argument, box rows, box bytes) triples";
  for (size_t i = 0; i < tensorMaps.size(); i += 3)
    if (tensorMaps[i] < 0 || tensorMaps[i] > 15 || tensorMaps[i + 1] <= 0 ||
        tensorMaps[i + 1] > 256 ||
        (tensorMaps[i + 2] != 128 && tensorMaps[i + 2] != 64))
      return emitError() << "unsupported: a tensor map of argument "
                         << tensorMaps[i] << " with " << tensorMaps[i + 1]
                         << " rows of " << tensorMaps[i + 2]
                         << " bytes (maps of the memref arguments 0-15, of "
                            "1-256 rows of one 128- or 64-byte slab)";
  if (registerEstimate < 0)
    return emitError() << "register_estimate must be non-negative, got "
                       << registerEstimate;
  return success();
}

bool TargetAttr::hasWarpgroupMma() const {
  const ::attn::ChipInfo *chip = ::attn::findChip(getArch());
  return chip && chip->warpgroupMma;
}

bool TargetAttr::hasBulkCopies() const {
  const ::attn::ChipInfo *chip = ::attn::findChip(getArch());
  return chip && chip->bulkCopies;
}

bool TargetAttr::hasGridDependencyControl() const {
  const ::attn::ChipInfo *chip = ::attn::findChip(getArch());
  return chip && ::attn::hasGridDependencyControl(chip->ccMajor);
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef arch, int64_t smemPerBlock,
                                 int64_t numSms) {
  if (arch != "cpu" && !::attn::findChip(arch))
    return emitError() << "unknown target architecture '" << arch
                       << "' (expected " << ::attn::chipList("cpu") << ")";
  // Tiles need room for at least a 16x16 block of Q, K and V at head dim 16.
  if (smemPerBlock < 4096 || smemPerBlock > (1 << 30))
    return emitError() << "smem_per_block must be in [4096, 2^30] bytes, got "
                       << smemPerBlock;
  if (numSms < 1 || numSms > 65536)
    return emitError() << "num_sms must be in [1, 65536], got " << numSms;
  return success();
}

LogicalResult AttnDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kTargetAttrName) {
    if (!isa<TargetAttr>(attr.getValue()))
      return op->emitError()
             << "'" << kTargetAttrName << "' must be an #attn.target attribute";
    return success();
  }
  if (name == kSoftmaxPassAttrName) {
    auto str = dyn_cast<StringAttr>(attr.getValue());
    if (!isa<scf::ForOp>(op) || !str ||
        !llvm::is_contained({"max", "sum", "pv"}, str.getValue()))
      return op->emitError() << "'" << kSoftmaxPassAttrName
                             << "' must be \"max\", \"sum\" or \"pv\" on an "
                                "scf.for";
    return success();
  }
  if (name == kSoftmaxScaleAttrName) {
    auto f = dyn_cast<FloatAttr>(attr.getValue());
    if (!isa<scf::ForOp>(op) || !f || !f.getType().isF32() ||
        !(f.getValueAsDouble() > 0) || !std::isfinite(f.getValueAsDouble()))
      return op->emitError() << "'" << kSoftmaxScaleAttrName
                             << "' must be a positive finite f32 on an scf.for";
    return success();
  }
  if (name == kCPUOnlyAttrName) {
    if (!isa<scf::ForallOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << name << "' must be a unit attribute on an scf.forall";
    return success();
  }
  if (name == kOnlineSoftmaxAttrName || name == kScoreGradTileAttrName) {
    if (!isa<scf::ForOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << name << "' must be a unit attribute on an scf.for";
    return success();
  }
  if (name == kSkipUnitFactorsAttrName || name == kFusedExponentAttrName) {
    if (!isa<arith::MulFOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << name << "' must be a unit attribute on an arith.mulf";
    return success();
  }
  if (name == kPolynomialExp2AttrName) {
    auto i = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<math::Exp2Op>(op) || !i || !i.getType().isInteger(64) ||
        i.getInt() < 1)
      return op->emitError() << "'" << kPolynomialExp2AttrName
                             << "' must be an i64 >= 1 on a math.exp2";
    return success();
  }
  if (name == kRegisterEstimateAttrName) {
    auto i = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<scf::ForallOp>(op) || !i || i.getInt() <= 0)
      return op->emitError() << "'" << kRegisterEstimateAttrName
                             << "' must be a positive integer on an "
                                "scf.forall";
    return success();
  }
  if (name == kProgramAttrName) {
    auto str = dyn_cast<StringAttr>(attr.getValue());
    ::attn::Program program = ::attn::Program::Attention;
    if (!isa<scf::ForallOp>(op) || !str ||
        !::attn::parseProgram(str.str(), program) ||
        program == ::attn::Program::Attention) {
      // Every program but the plain attention (which carries no name).
      std::string names;
      const size_t n = std::size(::attn::kPrograms);
      for (size_t i = 1; i < n; ++i)
        names += std::string(i == 1       ? ""
                             : i + 1 == n ? " or "
                                          : ", ") +
                 ::attn::programName(::attn::kPrograms[i]);
      return op->emitError() << "'" << kProgramAttrName << "' must be " << names
                             << " on an scf.forall";
    }
    return success();
  }
  if (name == kMaskBlockAttrName) {
    auto sizes = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!isa<scf::ForallOp>(op) || !sizes || sizes.size() != 2 ||
        sizes[0] <= 0 || sizes[1] <= 0)
      return op->emitError() << "'" << kMaskBlockAttrName
                             << "' must be two positive sizes (array<i64: "
                                "BQ, BK>) on an scf.forall";
    return success();
  }
  if (name == kSoftcapAttrName) {
    auto f = dyn_cast<FloatAttr>(attr.getValue());
    if (!isa<scf::ForallOp>(op) || !f || !f.getType().isF32() ||
        !::attn::isValidSoftcap(f.getValueAsDouble()))
      return op->emitError() << "'" << kSoftcapAttrName
                             << "' must be a positive, finite, normal f32 on "
                                "an scf.forall";
    return success();
  }
  if (name == kGridAttrName) {
    // The runtime's grammar of a grid (KernelABI.h), dim by dim.
    auto dims = dyn_cast<ArrayAttr>(attr.getValue());
    std::string text;
    bool ok = isa<scf::ForallOp>(op) && dims && dims.size() == 3;
    for (Attribute d : ok ? dims.getValue() : ArrayRef<Attribute>()) {
      auto str = dyn_cast<StringAttr>(d);
      ok &= bool(str);
      text += (text.empty() ? "" : ",") + (str ? str.str() : "");
    }
    ::attn::LaunchGrid grid;
    if (!ok || !::attn::parseLaunchGrid(text, grid))
      return op->emitError()
             << "'" << kGridAttrName
             << "' must be three products of batch, heads_q, heads_kv, "
                "q_blocks, splits, kv_blocks and constants in [1, "
             << ::attn::kMaxGridConstant
             << "] (e.g. \"q_blocks*splits\") on an scf.forall";
    return success();
  }
  if (name == kPersistentAttrName) {
    auto grid = dyn_cast<scf::ForallOp>(op);
    if (!isa<UnitAttr>(attr.getValue()) || !grid || grid.getRank() != 1 ||
        !grid->hasAttr(kGridAttrName))
      return op->emitError()
             << "'" << kPersistentAttrName
             << "' must be a unit attribute on a one-dimensional scf.forall "
                "of programs with its tiles' grid ('"
             << kGridAttrName << "')";
    return success();
  }
  if (name == kLSRAttrName) {
    if (!isa<BoolAttr>(attr.getValue()))
      return op->emitError() << "'" << kLSRAttrName << "' must be a bool";
    return success();
  }
  if (name == kKernelInfoAttrName) {
    if (!isa<KernelInfoAttr>(attr.getValue()))
      return op->emitError()
             << "'" << kKernelInfoAttrName << "' must be an #attn.kernel_info";
    return success();
  }
  return op->emitError() << "unknown attn dialect attribute '" << name << "'";
}
