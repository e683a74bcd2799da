// RUN: attn-opt %s -split-input-file -attn-legalize-bf16-memory | FileCheck %s

// A bf16 row copy (the CPU path's padded tile load): the load and the store
// move i16 vectors; the bf16 value in between is a bitcast, and the
// load's attributes (alignment, volatile, nontemporal) stay on it.
// CHECK-LABEL: llvm.func @row_copy
// CHECK-SAME:    (%[[SRC:.*]]: !llvm.ptr, %[[DST:.*]]: !llvm.ptr)
// CHECK-NEXT:    %[[I:.*]] = llvm.load volatile %[[SRC]] {alignment = 2 : i64, nontemporal} : !llvm.ptr -> vector<128xi16>
// CHECK-NEXT:    %[[V:.*]] = llvm.bitcast %[[I]] : vector<128xi16> to vector<128xbf16>
// CHECK-NEXT:    %[[J:.*]] = llvm.bitcast %[[V]] : vector<128xbf16> to vector<128xi16>
// CHECK-NEXT:    llvm.store %[[J]], %[[DST]] {alignment = 64 : i64} : vector<128xi16>, !llvm.ptr
// CHECK-NEXT:    llvm.return
llvm.func @row_copy(%src: !llvm.ptr, %dst: !llvm.ptr) {
  %v = llvm.load volatile %src {alignment = 2 : i64, nontemporal} : !llvm.ptr -> vector<128xbf16>
  llvm.store %v, %dst {alignment = 64 : i64} : vector<128xbf16>, !llvm.ptr
  llvm.return
}

// -----

// A constant row (zero padding) is stored as i16 too; the bf16 value's
// other users (the conversion to f32) keep reading bf16.
// CHECK-LABEL: llvm.func @pad_and_convert
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(dense<0.000000e+00> : vector<8xbf16>) : vector<8xbf16>
// CHECK:         %[[ZI:.*]] = llvm.bitcast %[[Z]] : vector<8xbf16> to vector<8xi16>
// CHECK:         llvm.store %[[ZI]], %{{.*}} : vector<8xi16>, !llvm.ptr
// CHECK:         %[[I:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<8xi16>
// CHECK:         %[[V:.*]] = llvm.bitcast %[[I]] : vector<8xi16> to vector<8xbf16>
// CHECK:         llvm.fpext %[[V]] : vector<8xbf16> to vector<8xf32>
llvm.func @pad_and_convert(%p: !llvm.ptr, %q: !llvm.ptr) -> vector<8xf32> {
  %z = llvm.mlir.constant(dense<0.0> : vector<8xbf16>) : vector<8xbf16>
  llvm.store %z, %p : vector<8xbf16>, !llvm.ptr
  %v = llvm.load %q : !llvm.ptr -> vector<8xbf16>
  %f = llvm.fpext %v : vector<8xbf16> to vector<8xf32>
  llvm.return %f : vector<8xf32>
}

// -----

// Not rewritten: scalar bf16 (one 16-bit move either way), f16 vectors
// (legal in vector registers with F16C) and other types.
// CHECK-LABEL: llvm.func @untouched
// CHECK-NEXT:    llvm.load %{{.*}} : !llvm.ptr -> bf16
// CHECK-NEXT:    llvm.load %{{.*}} : !llvm.ptr -> vector<8xf16>
// CHECK-NEXT:    llvm.load %{{.*}} : !llvm.ptr -> vector<8xf32>
// CHECK-NEXT:    llvm.store %{{.*}}, %{{.*}} : bf16, !llvm.ptr
// CHECK-NEXT:    llvm.store %{{.*}}, %{{.*}} : vector<8xf16>, !llvm.ptr
// CHECK-NEXT:    llvm.return
llvm.func @untouched(%p: !llvm.ptr) {
  %a = llvm.load %p : !llvm.ptr -> bf16
  %b = llvm.load %p : !llvm.ptr -> vector<8xf16>
  %c = llvm.load %p : !llvm.ptr -> vector<8xf32>
  llvm.store %a, %p : bf16, !llvm.ptr
  llvm.store %b, %p : vector<8xf16>, !llvm.ptr
  llvm.return
}
