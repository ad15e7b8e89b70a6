##===- Cuda.cmake - CUDA backend unit tests ---------------*- cmake -*-===//
#
# Built with the CUDA backend; every test skips itself without a GPU.
# Included from unittests/Runtime/CMakeLists.txt.
##===----------------------------------------------------------------===//
if(ONEFLOW_HAVE_CUDA)
  add_oneflow_unittest(OneFlowCudaKernelsTests
    ${CMAKE_CURRENT_SOURCE_DIR}/Cuda/MathKernelsTest.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/Cuda/NNKernelsTest.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/Cuda/LayoutKernelsTest.cpp)
  target_link_libraries(OneFlowCudaKernelsTests PRIVATE OneFlowBackends
    OneFlowCudaKernels)
endif()
# The NCCL library's conformance and failure tests: each skips itself
# without as many GPUs as its ranks.
if(ONEFLOW_HAVE_CUDA AND ONEFLOW_HAVE_NCCL)
  add_oneflow_unittest(OneFlowNcclTests
    ${CMAKE_CURRENT_SOURCE_DIR}/Cuda/NcclCommunicatorTest.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/Cuda/NcclFailureTest.cpp)
  target_link_libraries(OneFlowNcclTests PRIVATE OneFlowNcclCollectives)
endif()
