// RUN: of-opt %s -split-input-file -verify-diagnostics

// expected-error@+1 {{split axis must be non-negative, got -1}}
func.func @negative_split() attributes {a = #oneflow.sbp<S(-1)>} { return }

// -----

// expected-error@+1 {{expected an SBP (S(axis), B, P or P(max|min)), got 'X'}}
func.func @negative_unknown_sbp() attributes {a = #oneflow.sbp<X>} { return }

// -----

// expected-error@+1 {{expected a partial reduction (sum, max or min), got 'avg'}}
func.func @negative_unknown_reduction() attributes {a = #oneflow.sbp<P(avg)>} { return }

// -----

// Nested partials with two reductions: a max of sums is not a sum of maxes.
// expected-error@+1 {{nd-SBP mixes partial reductions (P, P(max), P(min)); the order of nested reductions would matter}}
func.func @negative_mixed_reductions() attributes {a = #oneflow.nd_sbp<[P, P(max)]>} { return }

// -----

// expected-error@+1 {{nd-SBP needs one SBP per mesh axis, got none}}
func.func @negative_empty_nd_sbp() attributes {a = #oneflow.nd_sbp<[]>} { return }

// -----

// expected-error@+1 {{unknown device kind 'tpu', expected 'cpu' or 'cuda'}}
func.func @negative_device() attributes {p = #oneflow.placement<tpu, ranks = [0]>} { return }

// -----

// expected-error@+1 {{placement has no ranks}}
func.func @negative_no_ranks() attributes {p = #oneflow.placement<cpu, ranks = []>} { return }

// -----

// expected-error@+1 {{rank -1 is negative}}
func.func @negative_rank() attributes {p = #oneflow.placement<cpu, ranks = [0, -1]>} { return }

// -----

// expected-error@+1 {{rank 1 appears twice in placement}}
func.func @negative_duplicate_rank() attributes {p = #oneflow.placement<cpu, ranks = [0, 1, 1, 2]>} { return }

// -----

// expected-error@+1 {{placement mesh has no axes}}
func.func @negative_empty_mesh() attributes {p = #oneflow.placement<cpu, ranks = [0], mesh = []>} { return }

// -----

// expected-error@+1 {{mesh axis of size 0 is not positive}}
func.func @negative_mesh_axis() attributes {p = #oneflow.placement<cpu, ranks = [0], mesh = [0, 1]>} { return }

// -----

// expected-error@+1 {{mesh [2, 3] holds 6 devices but the placement has 4 ranks}}
func.func @negative_mesh_size() attributes {p = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 3]>} { return }

// -----

// expected-error@+1 {{nd-SBP has 1 entries but the placement's mesh has 2 axes}}
func.func @negative_nd_sbp_length(%a: tensor<4x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [S(0)]>>) { return }

// -----

// expected-error@+1 {{split axis 2 is out of range for rank-2 tensor (mesh axis 1)}}
func.func @negative_split_axis(%a: tensor<4x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [B, S(2)]>>) { return }

// -----

// expected-error@+1 {{unknown initializer 'gaussian'}}
func.func @negative_init_kind() attributes {i = #oneflow.init<gaussian>} { return }

// -----

// expected-error@+1 {{initializer 'normal' takes 2 arguments (mean, std), got 1}}
func.func @negative_init_args() attributes {i = #oneflow.init<normal(0.1)>} { return }

// -----

// expected-error@+1 {{initializer 'zeros' takes 0 arguments, got 1}}
func.func @negative_init_zeros_args() attributes {i = #oneflow.init<zeros(1.0)>} { return }

// -----

// expected-error@+1 {{uniform initializer has low 1 above high 0}}
func.func @negative_uniform() attributes {i = #oneflow.init<uniform(1.0, 0.0)>} { return }

// -----

// expected-error@+1 {{normal initializer has negative std -1}}
func.func @negative_normal() attributes {i = #oneflow.init<normal(0.0, -1.0)>} { return }
