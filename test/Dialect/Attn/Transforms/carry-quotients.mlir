// RUN: attn-opt %s -split-input-file --attn-carry-quotients | FileCheck %s

// A flat loop over (head, block) pairs: j / n and j mod n become two
// iter_args, divided once before the loop by max(n, 1); at the end of each
// step r + 1 wraps to 0 at n, moving q on by one. j + 1 (a prefetch's next
// step, here in a nested region) gets its own pair, from lb + 1.
// CHECK-LABEL: func.func @flat
// CHECK-SAME:      (%[[LB:.*]]: index, %[[UB:.*]]: index, %[[N:.*]]: index
// CHECK:         %[[Z:.*]] = arith.cmpi eq, %[[N]], %c0{{.*}} : index
// CHECK-NEXT:    %[[SAFE:.*]] = arith.select %[[Z]], %c1{{.*}}, %[[N]] : index
// CHECK-NEXT:    %[[Q0:.*]] = arith.divui %[[LB]], %[[SAFE]] : index
// CHECK-NEXT:    %[[R0:.*]] = arith.remui %[[LB]], %[[SAFE]] : index
// CHECK:         %[[START:.*]] = arith.addi %[[LB]], %c1{{.*}} : index
// CHECK-NEXT:    %[[Q1:.*]] = arith.divui %[[START]], %{{.*}} : index
// CHECK-NEXT:    %[[R1:.*]] = arith.remui %[[START]], %{{.*}} : index
// CHECK:         scf.for %{{.*}} = %[[LB]] to %[[UB]] step %c1{{.*}} iter_args(%[[Q:.*]] = %[[Q0]], %[[R:.*]] = %[[R0]], %[[QN:.*]] = %[[Q1]], %[[RN:.*]] = %[[R1]])
// CHECK-NOT:       arith.divui
// CHECK-NOT:       arith.remui
// CHECK:           memref.store %{{.*}}, %{{.*}}[%[[Q]], %[[R]]]
// CHECK:           scf.if
// CHECK-NEXT:        memref.store %{{.*}}, %{{.*}}[%[[QN]], %[[RN]]]
// CHECK:           %[[R1N:.*]] = arith.addi %[[R]], %c1{{.*}} : index
// CHECK-NEXT:      %[[W:.*]] = arith.cmpi eq, %[[R1N]], %[[N]] : index
// CHECK-NEXT:      %[[Q1N:.*]] = arith.addi %[[Q]], %c1{{.*}} : index
// CHECK-NEXT:      %[[QS:.*]] = arith.select %[[W]], %[[Q1N]], %[[Q]] : index
// CHECK-NEXT:      %[[RS:.*]] = arith.select %[[W]], %c0{{.*}}, %[[R1N]] : index
// CHECK:           scf.yield %[[QS]], %[[RS]], %{{.*}}, %{{.*}} : index, index, index, index
func.func @flat(%lb: index, %ub: index, %n: index, %m: memref<?x?xf32>, %c: i1) {
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  scf.for %j = %lb to %ub step %c1 {
    %h = arith.divui %j, %n : index
    %b = arith.remui %j, %n : index
    memref.store %f, %m[%h, %b] : memref<?x?xf32>
    %next = arith.addi %j, %c1 : index
    scf.if %c {
      %hn = arith.divui %next, %n : index
      %bn = arith.remui %next, %n : index
      memref.store %f, %m[%hn, %bn] : memref<?x?xf32>
    }
  }
  return
}

// -----

// Left alone: a step other than 1, a divisor defined in the loop, a
// constant divisor (LLVM's to strength-reduce), a dividend that is not
// iv + c with c >= 0, a loop over i32.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-4: arith.divui %{{.*}}, %{{.*}} : index
// CHECK:         arith.divui %{{.*}}, %{{.*}} : i32
// CHECK-NOT:     iter_args
func.func @left_alone(%lb: index, %ub: index, %n: index, %m: memref<?xindex>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  scf.for %j = %lb to %ub step %c2 {
    %h = arith.divui %j, %n : index
    memref.store %h, %m[%h] : memref<?xindex>
  }
  scf.for %j = %lb to %ub step %c1 {
    %d = arith.addi %n, %j : index
    %h = arith.divui %j, %d : index
    memref.store %h, %m[%h] : memref<?xindex>
  }
  scf.for %j = %lb to %ub step %c1 {
    %h = arith.divui %j, %c4 : index
    memref.store %h, %m[%h] : memref<?xindex>
  }
  scf.for %j = %lb to %ub step %c1 {
    %p = arith.subi %j, %c1 : index
    %h = arith.divui %p, %n : index
    memref.store %h, %m[%h] : memref<?xindex>
  }
  %lb32 = arith.index_cast %lb : index to i32
  %ub32 = arith.index_cast %ub : index to i32
  %n32 = arith.index_cast %n : index to i32
  %one = arith.constant 1 : i32
  scf.for %j = %lb32 to %ub32 step %one : i32 {
    %h = arith.divui %j, %n32 : i32
    %hi = arith.index_cast %h : i32 to index
    memref.store %hi, %m[%hi] : memref<?xindex>
  }
  return
}
