##===- OneFlowAddTargets.cmake - Project target helpers ---*- cmake -*-===//
#
# SPDX-License-Identifier: Apache-2.0
#
# Thin wrappers, in the manner of CIRCT's AddCIRCT.cmake, so that every
# library and test binary of the project is built the same way.
#
##===----------------------------------------------------------------===//

# A compiler library: shared, linked against the shared libMLIR and libLLVM
# (one linkage model per process, so that plugins loaded by of-opt share the
# tool's MLIR and our dialect's TypeIDs), depending on the generated headers.
#
#   add_oneflow_library(name SOURCES... [LINK_LIBS libs...])
function(add_oneflow_library name)
  cmake_parse_arguments(ARG "" "" "LINK_LIBS" ${ARGN})
  add_library(${name} SHARED ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR LLVM)
  add_dependencies(${name} oneflow-headers)
  set_target_properties(${name} PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${ONEFLOW_BINARY_DIR}/lib)
endfunction()

# A GoogleTest binary under unittests/, run by lit's GoogleTest format so that
# one lit run reports IR tests and unit tests together.
function(add_oneflow_unittest name)
  add_executable(${name} ${ARGN})
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${ONEFLOW_BINARY_DIR}/unittests/bin)
  target_link_libraries(${name} PRIVATE GTest::gtest GTest::gtest_main)
  set_property(GLOBAL APPEND PROPERTY ONEFLOW_UNITTESTS ${name})
endfunction()
