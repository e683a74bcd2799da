//===- AttnTypes.td - attn types ---------------------------*- tablegen -*-===//
#ifndef ATTN_DIALECT_ATTN_IR_ATTNTYPES_TD
#define ATTN_DIALECT_ATTN_IR_ATTNTYPES_TD

include "attn/Dialect/Attn/IR/AttnBase.td"
include "mlir/IR/AttrTypeBase.td"

def Attn_RingType : TypeDef<Attn_Dialect, "Ring"> {
  let mnemonic = "ring";
  let summary = "A ring of tile buffers in shared memory";
  let description = [{
    `stages` buffers, each holding one tile of type `tile` (which has an
    `#attn.shared` layout), for software-pipelined loads: the copy of block
    j + stages − 1 runs while block j is computed on. Slot s of the ring is
    read as a tile with `attn.ring_slot`.

    Example:
    `!attn.ring<2, tensor<64x128xbf16, #attn.shared<swizzle = 8, pad = 0>>>`.
  }];
  let parameters = (ins "int64_t":$stages, "::mlir::RankedTensorType":$tile);
  let assemblyFormat = "`<` $stages `,` $tile `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The shared-memory layout of a slot.
    SharedLayoutAttr getLayout() const;
    /// Bytes of one slot.
    int64_t getSlotBytes() const;
    /// Whether the ring is a tile queue (attn.post_tile / claim_tile /
    /// take_tile): slots of one i32, `tensor<1x1xi32, #attn.shared<swizzle =
    /// 0, pad = 0>>`.
    bool isTileQueue() const;
    /// The tile queue of `stages` slots.
    static RingType getTileQueue(::mlir::MLIRContext *ctx, int64_t stages);
  }];
}

#endif // ATTN_DIALECT_ATTN_IR_ATTNTYPES_TD
