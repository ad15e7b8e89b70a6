//===- ReduceOp.h - How a reduction combines ranks' elements ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The element-wise reductions of the communicator (Communicator.h) and of
// the collective actors of a plan (ActorLayout.h): the reduction of a
// partial tensor's P, P(max) or P(min), as the compiler's layouts name it.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_REDUCEOP_H
#define OFRT_REDUCEOP_H

#include "ofsupport/Layout.h"

namespace ofrt {

/// How a reduction combines the ranks' elements: Sum, Max or Min
/// (ofsupport::reductionName names them).
using ReduceOp = ofsupport::Reduction;

} // namespace ofrt

#endif // OFRT_REDUCEOP_H
