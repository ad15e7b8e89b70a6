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

#include <map>
#include <string>

namespace oftest {

inline ofrt::OpRole roleOf(const std::string &type) {
  using ofrt::OpRole;
  static const std::map<std::string, OpRole> roles = {
      {"oneflow.input", OpRole::Input},
      {"oneflow.output", OpRole::Output},
      {"oneflow.variable", OpRole::Variable},
      {"oneflow.all_reduce", OpRole::AllReduce},
      {"oneflow.reduce_scatter", OpRole::ReduceScatter},
      {"oneflow.all_gather", OpRole::AllGather},
      {"oneflow.all_to_all", OpRole::AllToAll},
      {"oneflow.transfer", OpRole::Transfer},
      {"oneflow.sgd_update", OpRole::Optimizer},
      {"oneflow.adam_update", OpRole::Optimizer},
  };
  auto it = roles.find(type);
  return it == roles.end() ? OpRole::Kernel : it->second;
}

} // namespace oftest

#endif // ONEFLOW_UNITTESTS_RUNTIME_TESTROLES_H
