//===- Status.h - Returning errors early ------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_STATUS_H
#define OFRT_STATUS_H

#include "absl/status/status.h"

/// Returns the status of `expr` from the enclosing function if it is an
/// error.
#define OFRT_RETURN_IF_ERROR(expr)                                             \
  do {                                                                         \
    ::absl::Status _ofrt_status = (expr);                                      \
    if (!_ofrt_status.ok())                                                    \
      return _ofrt_status;                                                     \
  } while (false)

#endif // OFRT_STATUS_H
