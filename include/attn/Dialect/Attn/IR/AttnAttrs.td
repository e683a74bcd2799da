//===- AttnAttrs.td - attn attributes ----------------------*- tablegen -*-===//
#ifndef ATTN_DIALECT_ATTN_IR_ATTNATTRS_TD
#define ATTN_DIALECT_ATTN_IR_ATTNATTRS_TD

include "attn/Dialect/Attn/IR/AttnBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Attn_ReduceKind : I32EnumAttr<"ReduceKind", "row reduction kind", [
    I32EnumAttrCase<"Max", 0, "max">,
    I32EnumAttrCase<"Sum", 1, "sum">
  ]> {
  let cppNamespace = "::mlir::attn";
  let genSpecializedAttr = 0;
}
def Attn_ReduceKindAttr : EnumAttr<Attn_Dialect, Attn_ReduceKind, "reduce_kind">;

def Attn_TargetAttr : AttrDef<Attn_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "Description of the machine that tiling sizes its blocks for";
  let description = [{
    Names the architecture (`cpu`, `sm_80`, `sm_86`, `sm_89`, `sm_90`,
    `sm_90a`), the fast on-chip memory one program (thread block) may use, in
    bytes, and the number of processors (SMs). The IO-aware tiling pass reads
    it from the op's `target` attribute, else from an `attn.target` attribute
    on an enclosing op, else from its `target` option.

    Example:

    ```mlir
    #attn.target<arch = "sm_90a", smem_per_block = 232448, num_sms = 132>
    ```
  }];
  let parameters = (ins
    StringRefParameter<"architecture name">:$arch,
    "int64_t":$smem_per_block,
    "int64_t":$num_sms
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// True for NVIDIA GPU targets (sm_*).
    bool isGPU() const { return getArch().starts_with("sm_"); }
    /// A known target by name ("cpu", "sm_80", ...), or null.
    static TargetAttr getKnown(::mlir::MLIRContext *ctx, ::llvm::StringRef name);
  }];
}

#endif // ATTN_DIALECT_ATTN_IR_ATTNATTRS_TD
