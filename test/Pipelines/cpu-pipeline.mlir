// RUN: attn-opt %s -attn-cpu-pipeline | FileCheck %s \
// RUN:   --implicit-check-not=attn. --implicit-check-not=linalg. \
// RUN:   --implicit-check-not=scf. --implicit-check-not=tensor. \
// RUN:   --implicit-check-not=memref. --implicit-check-not=math. \
// RUN:   --implicit-check-not=llvm.intr.exp2
// RUN: attn-opt %s -attn-cpu-pipeline="threads=4" | FileCheck %s --check-prefix=THREADS
// RUN: attn-opt %s -attn-cpu-pipeline="threads=4" | mlir-translate --mlir-to-llvmir \
// RUN:   | FileCheck %s --check-prefix=LLVMIR
// RUN: attn-opt %s -attn-cpu-pipeline | FileCheck %s --check-prefix=BF16MEM
// RUN: attn-opt %s -attn-cpu-pipeline | FileCheck %s --check-prefix=ROWSUM
// RUN: attn-opt %s -attn-tile-pipeline | FileCheck %s --check-prefix=TILE \
// RUN:   --implicit-check-not=attn.softmax_pass
// RUN: attn-opt %s -attn-tile-pipeline="fuse=false" | FileCheck %s --check-prefix=NAIVE \
// RUN:   --implicit-check-not=attn.online_softmax
// RUN: attn-opt %s -attn-tile-pipeline="target=sm_86" | FileCheck %s --check-prefix=SM86
// RUN: attn-opt %s -attn-cpu-pipeline | FileCheck %s --check-prefix=TILE4X16
// RUN: attn-opt %s -attn-cpu-pipeline="cpu-tile-m=8 cpu-tile-n=32" | FileCheck %s --check-prefix=TILE8X32

// The contractions' register tile: 4x16 by default (AVX2: 8 accumulators of
// 8 lanes), 8x32 with cpu-tile-m/n (what attn-run picks on an AVX-512 host:
// 16 accumulators of 16 lanes): the outer products' FMAs on <16 x f32> or
// <32 x f32> rows.
// TILE4X16:     llvm.intr.fmuladd{{.*}} : (vector<16xf32>, vector<16xf32>, vector<16xf32>)
// TILE4X16-NOT: llvm.intr.fmuladd{{.*}} : (vector<32xf32>
// TILE8X32:     llvm.intr.fmuladd{{.*}} : (vector<32xf32>, vector<32xf32>, vector<32xf32>)
// TILE8X32-NOT: llvm.intr.fmuladd{{.*}} : (vector<16xf32>

// The CPU pipeline ends in the LLVM dialect: no attn, tensor, linalg, scf,
// memref or math op anywhere in the output (the implicit CHECK-NOTs of the
// RUN line scan all of it), the entry keeps its C interface, the tiles are
// vector code (attn-vectorize-cpu-tiles: the register tiles' outer products
// as FMAs on <16 x f32>, exp2 as a polynomial, not the exp2 intrinsic, which
// would be one libm call per element).
// The grid loop (batch, head, query block) is the one OpenMP worksharing
// loop, dynamically scheduled, its body in a stack scope; the OpenMP ops stay
// in the LLVM dialect output (translated to runtime calls with the module).
// With threads=0 (the default) the runtime picks the thread count.
// CHECK-LABEL: llvm.func @attention
// CHECK:         omp.parallel {
// CHECK-NEXT:      omp.wsloop schedule(dynamic) {
// CHECK-NEXT:        omp.loop_nest (%{{.*}}, %{{.*}}, %{{.*}}) : i64 = {{.*}} collapse(3) {
// CHECK-NEXT:          %[[SP:.*]] = llvm.intr.stacksave
// CHECK:         llvm.intr.fmuladd({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK:         llvm.intr.log
// CHECK:               llvm.intr.stackrestore %[[SP]]
// CHECK-NEXT:          omp.yield
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      omp.terminator
// CHECK-NOT:     omp.
// CHECK-LABEL: llvm.func @_mlir_ciface_attention

// threads=N: a num_threads clause; still one parallel loop.
// THREADS:       %[[N:.*]] = llvm.mlir.constant(4 : i32) : i32
// THREADS:       omp.parallel num_threads(%[[N]] : i32) {
// THREADS-NEXT:    omp.wsloop schedule(dynamic) {
// THREADS-NOT:   omp.parallel
// THREADS-NOT:   omp.wsloop

// In LLVM IR: the body outlined and forked on the OpenMP runtime (libomp's
// __kmpc_* entry points, which attn-run's JIT loads), 4 threads pushed
// first, iterations handed out by dynamic dispatch.
// LLVMIR-LABEL: define void @attention(
// LLVMIR:         call void @__kmpc_push_num_threads(ptr @{{.*}}, i32 %{{.*}}, i32 4)
// LLVMIR:         call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @{{.*}}, i32 {{[0-9]+}}, ptr @attention..omp_par,
// LLVMIR-NOT:     __kmpc_fork_call
// LLVMIR-LABEL: define internal void @attention..omp_par(
// LLVMIR:         call void @__kmpc_dispatch_init_8u(
// LLVMIR:         call i32 @__kmpc_dispatch_next_8u(

// bf16 tiles move through memory as i16 vectors (attn-legalize-bf16-memory:
// LLVM splits bf16 vector loads and stores into one move per element on
// hosts without native bf16), and are bitcast to bf16 in registers.
// BF16MEM-LABEL: llvm.func @attention
// BF16MEM-NOT:   llvm.load {{.*}} -> vector<{{[0-9]+}}xbf16>
// BF16MEM-NOT:   llvm.store {{.*}} : vector<{{[0-9]+}}xbf16>
// BF16MEM:       llvm.load {{.*}} -> vector<128xi16>
// BF16MEM-NEXT:  llvm.bitcast {{.*}} : vector<128xi16> to vector<128xbf16>
// BF16MEM-NOT:   llvm.load {{.*}} -> vector<{{[0-9]+}}xbf16>
// BF16MEM-NOT:   llvm.store {{.*}} : vector<{{[0-9]+}}xbf16>
// BF16MEM-LABEL: llvm.func @_mlir_ciface_attention

// The row sums (l' = α·l + rowsum(P), once per loop) reduce as a tree
// (reassoc): an ordered fadd reduction is one dependent scalar add per
// element on the host.
// ROWSUM-LABEL:  llvm.func @attention
// ROWSUM-COUNT-2: llvm.intr.vector.reduce.fadd"({{.*}}) <{fastmathFlags = #llvm.fastmath<reassoc>}>
// ROWSUM-NOT:    llvm.intr.vector.reduce.fadd
// ROWSUM-LABEL:  llvm.func @_mlir_ciface_attention

// The tiling pipeline stops at the tile level, fused (no attn.softmax_pass
// anywhere: the RUN line's implicit CHECK-NOT)...
// TILE-LABEL:  func.func @attention
// TILE:          scf.forall
// TILE-COUNT-2:  attn.online_softmax

// ... or, without fusion, in the naive three-pass form (no
// attn.online_softmax anywhere: the RUN line's implicit CHECK-NOT).
// NAIVE-COUNT-2: attn.softmax_pass = "max"
// NAIVE-COUNT-2: attn.softmax_pass = "sum"
// NAIVE-COUNT-2: attn.softmax_pass = "pv"

// A GPU target gives the blocks attn-codegen builds its kernel from
// (attn-select-gpu-blocks: the register and shared-memory budget): sm_86,
// bf16, d = 128: 128 query rows, 32 key/value rows (two m-tiles a warp).
// SM86:          attn.load_tile %arg0{{.*}} -> tensor<128x128xbf16>
// SM86:          attn.load_tile %arg1{{.*}} -> tensor<32x128xbf16>

func.func @attention(%q: memref<?x?x?x128xbf16>, %k: memref<?x?x?x128xbf16>,
                     %v: memref<?x?x?x128xbf16>, %o: memref<?x?x?x128xbf16>,
                     %lse: memref<?x?x?xf32>) attributes {llvm.emit_c_interface} {
  attn.attention %q, %k, %v into %o lse(%lse : memref<?x?x?xf32>) {causal}
      : memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>,
        memref<?x?x?x128xbf16>, memref<?x?x?x128xbf16>
  return
}
