// oneflow-report-strategy-cost prices a hand strategy after propagation
// under the model of oneflow-auto-parallel, ZeRO's stated boxings included.
//
// RUN: of-opt %S/oneflow-auto-parallel.mlir -pass-pipeline='builtin.module(func.func(oneflow-infer-shapes,oneflow-autodiff{loss=loss},oneflow-optimizer{kind=sgd momentum=0.9},oneflow-apply-strategy{strategy=dp devices=4},oneflow-sbp-propagation{cluster=%S/Inputs/cluster-cpu-node.json},oneflow-report-strategy-cost{cluster=%S/Inputs/cluster-cpu-node.json}))' -o /dev/null | FileCheck %s --check-prefix=DP
// DP:      oneflow-report-strategy-cost: @mlp on [4]
// DP-NEXT: strategy step us compute us comm us bytes/device
// DP-NEXT: given {{[0-9.]+}} {{[0-9.]+}} {{[0-9.]+}} {{[0-9]+}}
// DP:      oneflow.input [S(0)]
// DP:      oneflow.variable [B]
// DP:      oneflow.sgd_update [B], [B], [B] -> compute {{[0-9.]+}} us, comm {{[1-9][0-9.]*}} us
// DP:      oneflow.sgd_update [B], [B], [B] -> compute 78.6 us
//
// ZeRO: the variables' gathers are priced as communication.
// RUN: of-opt %S/oneflow-auto-parallel.mlir -pass-pipeline='builtin.module(func.func(oneflow-infer-shapes,oneflow-autodiff{loss=loss},oneflow-optimizer{kind=sgd momentum=0.9},oneflow-apply-strategy{strategy=zero devices=4},oneflow-sbp-propagation{cluster=%S/Inputs/cluster-cpu-node.json},oneflow-report-strategy-cost{cluster=%S/Inputs/cluster-cpu-node.json per-op=false}))' -o /dev/null | FileCheck %s --check-prefix=ZERO
// ZERO: given {{[0-9.]+}} {{[0-9.]+}} {{[1-9][0-9.]*}} {{[0-9]+}}
// ZERO-NOT: per op
//
// An op whose own kernel the cluster file measured ("op_rates") is priced
// at that rate by the bytes it moves (sgd_update: 786432 bytes, past the
// last size: 1e8 B/s), the others as before.
// RUN: of-opt %S/oneflow-auto-parallel.mlir -pass-pipeline='builtin.module(func.func(oneflow-infer-shapes,oneflow-autodiff{loss=loss},oneflow-optimizer{kind=sgd momentum=0.9},oneflow-apply-strategy{strategy=dp devices=4},oneflow-sbp-propagation{cluster=%S/Inputs/cluster-cpu-node.json},oneflow-report-strategy-cost{cluster=%S/Inputs/cluster-op-rates.json}))' -o /dev/null | FileCheck %s --check-prefix=RATES
// RATES: oneflow.relu [S(0)] -> [S(0)] compute 26.2 us
// RATES: oneflow.sgd_update [B], [B], [B] -> compute 7864.3 us
//
// Without layouts there is nothing to price: an error names the op.
// RUN: not of-opt %S/oneflow-auto-parallel.mlir -pass-pipeline='builtin.module(func.func(oneflow-report-strategy-cost))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BARE
// BARE: error: oneflow-report-strategy-cost: result 0 has no layout; run oneflow-sbp-propagation first
