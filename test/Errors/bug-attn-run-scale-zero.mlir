// FIXED BUG (regression test, formerly XFAIL): `attn-run --scale 0` (or -0) is
// taken as "not given" and runs with 1/sqrt(D), exit 0, while the op rejects
// scale = 0 and --scale -1 is an error. An explicit --scale 0 should be an
// error.

// RUN: not attn-run --scale 0 --seq-q 16 2>&1 | FileCheck %s
// RUN: not attn-run --scale -0 --seq-q 16 2>&1 | FileCheck %s
// CHECK: attn-run: error: scale must be positive and finite
