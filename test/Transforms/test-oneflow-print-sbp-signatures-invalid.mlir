// RUN: of-opt %s -test-oneflow-print-sbp-signatures -verify-diagnostics -o /dev/null
// RUN: not of-opt %s -test-oneflow-print-sbp-signatures="mesh-axis-size=0" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ZERO

// ZERO: error: mesh-axis-size must be at least 1, got 0

// Ops of other dialects have no SBP rule.
func.func @no_rule(%y: tensor<8x6xf32>) {
  // expected-error@+1 {{op 'arith.addf' has no SBP rule (SbpInterface)}}
  %0 = arith.addf %y, %y : tensor<8x6xf32>
  return
}
