// A cluster description that cannot be read is reported with its path
// (malformed files: unittests/Analysis/CostModelTest.cpp).
// RUN: of-opt %s -oneflow-sbp-propagation="cluster=%S/Inputs/does-not-exist.json" -verify-diagnostics

#p4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

// expected-error@+1 {{does-not-exist.json: cannot read: No such file or directory}}
func.func @negative_missing_cluster_file() {
  %x = oneflow.input "x" : tensor<8x4xf32, #oneflow.global<#p4, [S(0)]>>
  return
}
