// Every error of oneflow-apply-strategy; each part runs with its own options.
//
// RUN: split-file %s %t
// RUN: of-opt %t/unknown.mlir -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=pipeline devices=2}))' -verify-diagnostics
// RUN: of-opt %t/device.mlir -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=dp devices=2 device=tpu}))' -verify-diagnostics
// RUN: of-opt %t/odd.mlir -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=hybrid devices=3}))' -verify-diagnostics
// RUN: of-opt %t/no-devices.mlir -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=dp devices=0}))' -verify-diagnostics
// RUN: of-opt %t/batch.mlir -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=dp devices=4}))' -verify-diagnostics
// RUN: of-opt %t/boxed.mlir -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=dp devices=2}))' -verify-diagnostics
// RUN: of-opt %t/mesh.mlir -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=%t/mesh.json devices=3}))' -verify-diagnostics
// RUN: of-opt %t/axis.mlir -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=%t/axis.json devices=2}))' -verify-diagnostics
// RUN: of-opt %t/empty.mlir -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=%t/empty.json devices=4}))' -verify-diagnostics
// RUN: of-opt %t/json.mlir -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=%t/bad.json devices=2}))' -verify-diagnostics
// RUN: of-opt %t/key.mlir -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=%t/key.json devices=2}))' -verify-diagnostics
// RUN: of-opt %t/nomesh.mlir -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=%t/nomesh.json devices=2}))' -verify-diagnostics
// RUN: of-opt %t/hugemesh.mlir -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=%t/hugemesh.json devices=2}))' -verify-diagnostics
// RUN: of-opt %t/length.mlir -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=%t/length.json devices=4}))' -verify-diagnostics
// RUN: of-opt %t/partial.mlir -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=%t/partial.json devices=2}))' -verify-diagnostics
// RUN: of-opt %t/sbp.mlir -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=%t/sbp.json devices=2}))' -verify-diagnostics
// RUN: of-opt %t/match.mlir -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=%t/match.json devices=2}))' -verify-diagnostics
// RUN: of-opt %t/rule.mlir -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=%t/rule.json devices=2}))' -verify-diagnostics

//--- unknown.mlir
// expected-error@+1 {{unknown strategy 'pipeline': not dp, tp, hybrid or zero, and not a readable strategy file (No such file or directory)}}
func.func @negative_unknown() {
  return
}

//--- device.mlir
// expected-error@+1 {{oneflow-apply-strategy: device 'tpu' is not cpu or cuda}}
func.func @negative_device() {
  return
}

//--- odd.mlir
// expected-error@+1 {{strategy 'hybrid' lays 3 devices out as a mesh [2, devices / 2]; it needs an even number of devices}}
func.func @negative_odd() {
  return
}

//--- no-devices.mlir
// expected-error@+1 {{devices is 0; it must be at least 1}}
func.func @negative_no_devices() {
  return
}

//--- batch.mlir
func.func @negative_batch() {
  // expected-error@+1 {{strategy 'dp' gives 'x' the layout [S(0)], which does not fit 'tensor<2x4xf32>' on mesh #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>: some rank would get an empty piece}}
  %x = oneflow.input "x" : tensor<2x4xf32>
  return
}

//--- boxed.mlir
func.func @negative_boxed() {
  %x = oneflow.input "x" : tensor<4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>
  // expected-error@+1 {{oneflow-apply-strategy lays out a program written for one device, but this program changes layouts already ('oneflow.boxing')}}
  %y = oneflow.boxing %x : tensor<4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>> -> tensor<4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [B]>>
  return
}

//--- mesh.json
{"mesh": [2, 2]}
//--- mesh.mlir
// expected-error-re@+1 {{strategy file '{{.*}}mesh.json' key "mesh": [2, 2] has 4 ranks but devices is 3}}
func.func @negative_mesh() {
  return
}

//--- axis.json
{"mesh": [2], "variables": [{"match": "w", "sbp": ["S(2)"]}]}
//--- axis.mlir
func.func @negative_axis() {
  // expected-error-re@+1 {{strategy file '{{.*}}axis.json' key "variables[0]" splits 'w' on axis 2 but 'tensor<4x4xf32>' has rank 2}}
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<4x4xf32>
  return
}

//--- empty.json
{"mesh": [4], "default_variable": ["S(1)"]}
//--- empty.mlir
func.func @negative_empty() {
  // expected-error-re@+1 {{strategy file '{{.*}}empty.json' key "default_variable" gives 'w' the layout [S(1)], which does not fit 'tensor<4x2xf32>' on mesh {{.*}}: some rank would get an empty piece}}
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<4x2xf32>
  return
}

//--- bad.json
{"mesh": [2],
//--- json.mlir
// expected-error-re@+1 {{strategy file '{{.*}}bad.json' is not valid JSON: {{.*}}}}
func.func @negative_json() {
  return
}

//--- key.json
{"mesh": [2], "layers": []}
//--- key.mlir
// expected-error-re@+1 {{strategy file '{{.*}}key.json' has unknown key "layers" (expected mesh, inputs, variables, default_input, default_variable, stages, recompute)}}
func.func @negative_key() {
  return
}

//--- nomesh.json
{"inputs": []}
//--- nomesh.mlir
// expected-error-re@+1 {{strategy file '{{.*}}nomesh.json' key "mesh" must be a non-empty list of positive integers}}
func.func @negative_no_mesh() {
  return
}

//--- hugemesh.json
{"mesh": [4611686018427387904, 4]}
//--- hugemesh.mlir
// expected-error-re@+1 {{strategy file '{{.*}}hugemesh.json' key "mesh" has more than 1048576 ranks}}
func.func @negative_huge_mesh() {
  return
}

//--- length.json
{"mesh": [2, 2], "inputs": [{"match": "x", "sbp": ["S(0)"]}]}
//--- length.mlir
// expected-error-re@+1 {{strategy file '{{.*}}length.json' key "inputs[0].sbp" has 1 entries but the mesh has 2 axes}}
func.func @negative_length() {
  return
}

//--- partial.json
{"mesh": [2], "default_variable": ["P"]}
//--- partial.mlir
// expected-error-re@+1 {{strategy file '{{.*}}partial.json' key "default_variable[0]" is "P": inputs and variables are whole, never partial}}
func.func @negative_partial() {
  return
}

//--- sbp.json
{"mesh": [2], "variables": [{"match": "w", "sbp": ["split(0)"]}]}
//--- sbp.mlir
// expected-error-re@+1 {{strategy file '{{.*}}sbp.json' key "variables[0].sbp[0]" is "split(0)", not "B" or "S(<axis>)"}}
func.func @negative_sbp() {
  return
}

//--- match.json
{"mesh": [2], "variables": [{"sbp": ["B"]}]}
//--- match.mlir
// expected-error-re@+1 {{strategy file '{{.*}}match.json' key "variables[0].match" must be a non-empty name or glob}}
func.func @negative_match() {
  return
}

//--- rule.json
{"mesh": [2], "inputs": [{"match": "x", "sbp": ["B"], "layout": "B"}]}
//--- rule.mlir
// expected-error-re@+1 {{strategy file '{{.*}}rule.json' key "inputs[0]" has unknown key "layout" (expected "match" and "sbp")}}
func.func @negative_rule() {
  return
}
