//===- TestRoles.h - Roles of the ops tests build by hand -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Tests write programs by op name; the runtime reads each actor's role (the
// plan's `role`, which the compiler's plan export derives from the op's
// class). This gives hand-built programs the role the compiler would.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_UNITTESTS_RUNTIME_TESTROLES_H
#define ONEFLOW_UNITTESTS_RUNTIME_TESTROLES_H

#include "ofrt/Kernel.h"

#include <string>

namespace oftest {

inline ofrt::OpRole roleOf(const std::string &type) {
  return ofrt::roleOfOp(type);
}

} // namespace oftest

#endif // ONEFLOW_UNITTESTS_RUNTIME_TESTROLES_H
