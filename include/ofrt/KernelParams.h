//===- KernelParams.h - Kernel parameters from op definitions ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// For every op of the oneflow dialect, `ofrt::params::<OpClass>`: its
// attributes as typed fields, generated at build time from the op's ODS
// definition (tools/of-tblgen, -gen-kernel-params), and
// `read(const OpDesc &)`, which fills them from a plan's actor with the
// op's defaults. A kernel that reads its parameters this way cannot name an
// attribute its op does not declare, or read one with another type: it does
// not compile. `kOps` lists every op's name.
//
//   OFRT_READ_PARAMS(p, params::BitShiftOp, op); // or return its error
//   ... p.direction, p.width ...
//
// Attributes a plan carries as tensors or initializers, and enums, are not
// fields; kernels read those from the OpDesc. `userName(op)` is the name of
// an input, output or variable, read the same way.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_KERNELPARAMS_H
#define OFRT_KERNELPARAMS_H

#include "ofrt/Kernel.h"
#include "ofrt/KernelChecks.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ofrt/KernelParams.h.inc"

namespace ofrt {

/// The name a user knows an input, output or variable by: its op's "name"
/// attribute, read through the op's generated parameters; the actor's name
/// for another op, or a plan whose op lacks it.
inline std::string userName(const OpDesc &op) {
  auto read = [&](auto parsed) {
    return parsed.ok() && !parsed->name.empty() ? parsed->name : op.name;
  };
  switch (op.role) {
  case OpRole::Input:
    return read(params::InputOp::read(op));
  case OpRole::Output:
    return read(params::OutputOp::read(op));
  case OpRole::Variable:
    return read(params::VariableOp::read(op));
  default:
    return op.name;
  }
}

} // namespace ofrt

#endif // OFRT_KERNELPARAMS_H
