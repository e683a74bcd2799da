// RUN: not attn-opt %s --attn-chain-grids="programs=decode" 2>&1 | FileCheck %s

// CHECK: pass option programs: unknown program 'decode' (expected
func.func @f() {
  return
}
