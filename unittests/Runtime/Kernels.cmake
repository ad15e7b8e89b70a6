##===- Kernels.cmake - CPU kernel unit tests --------------*- cmake -*-===//
#
# One binary per kernel family, so that each compiles in a reasonable time.
# Included from unittests/Runtime/CMakeLists.txt.
##===----------------------------------------------------------------===//
set(ONEFLOW_KERNEL_TEST_DIR ${CMAKE_CURRENT_SOURCE_DIR}/Kernels)

add_oneflow_unittest(OneFlowCpuMathKernelsTests
  ${ONEFLOW_KERNEL_TEST_DIR}/MatmulTest.cpp
  ${ONEFLOW_KERNEL_TEST_DIR}/ElementwiseTest.cpp)
target_link_libraries(OneFlowCpuMathKernelsTests PRIVATE OneFlowCpuKernels OneFlowBackends)

add_oneflow_unittest(OneFlowCpuNNKernelsTests
  ${ONEFLOW_KERNEL_TEST_DIR}/NNTest.cpp
  ${ONEFLOW_KERNEL_TEST_DIR}/ConvPoolTest.cpp
  ${ONEFLOW_KERNEL_TEST_DIR}/ConvBnTest.cpp
  ${ONEFLOW_KERNEL_TEST_DIR}/GradTest.cpp
  ${ONEFLOW_KERNEL_TEST_DIR}/RecurrentTest.cpp)
target_link_libraries(OneFlowCpuNNKernelsTests PRIVATE OneFlowCpuKernels OneFlowBackends)
# ConvBnTest lays values out in the machine's block width (ConvUtils.h).
target_include_directories(OneFlowCpuNNKernelsTests PRIVATE
  ${PROJECT_SOURCE_DIR}/lib/Runtime/Kernels/Cpu)

add_oneflow_unittest(OneFlowCpuShapeKernelsTests
  ${ONEFLOW_KERNEL_TEST_DIR}/ShapeTest.cpp
  ${ONEFLOW_KERNEL_TEST_DIR}/RegistryTest.cpp)
target_link_libraries(OneFlowCpuShapeKernelsTests PRIVATE OneFlowCpuKernels OneFlowBackends
  OpenMP::OpenMP_CXX)
# RegistryTest checks cpu::addKernel's thread limit (KernelUtils.h).
target_include_directories(OneFlowCpuShapeKernelsTests PRIVATE
  ${PROJECT_SOURCE_DIR}/lib/Runtime/Kernels/Cpu)

add_oneflow_unittest(OneFlowCpuRandomKernelsTests
  ${ONEFLOW_KERNEL_TEST_DIR}/RandomTest.cpp
  ${ONEFLOW_KERNEL_TEST_DIR}/SourcesTest.cpp)
target_link_libraries(OneFlowCpuRandomKernelsTests PRIVATE OneFlowCpuKernels OneFlowBackends)

add_oneflow_unittest(OneFlowCpuOptimizerKernelsTests
  ${ONEFLOW_KERNEL_TEST_DIR}/OptimizerTest.cpp)
target_link_libraries(OneFlowCpuOptimizerKernelsTests PRIVATE OneFlowCpuKernels OneFlowBackends)
