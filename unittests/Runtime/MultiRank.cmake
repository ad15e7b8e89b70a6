##===- MultiRank.cmake - Multi-rank runtime tests ---------*- cmake -*-===//
#
# Collective and transfer kernels, sources and sinks with layouts, and whole
# plans on several in-process ranks. Included from
# unittests/Runtime/CMakeLists.txt.
##===----------------------------------------------------------------===//
find_package(OpenMP REQUIRED)
set(ONEFLOW_MULTIRANK_TEST_DIR ${CMAKE_CURRENT_SOURCE_DIR}/MultiRank)

add_oneflow_unittest(OneFlowCollectiveKernelsTests
  ${ONEFLOW_MULTIRANK_TEST_DIR}/CollectiveKernelsTest.cpp
  ${ONEFLOW_MULTIRANK_TEST_DIR}/TransferTest.cpp)
target_link_libraries(OneFlowCollectiveKernelsTests PRIVATE OneFlowCollectiveKernels OneFlowCollectives OneFlowBackends)

add_oneflow_unittest(OneFlowMultiRankTests
  ${ONEFLOW_MULTIRANK_TEST_DIR}/PiecesTest.cpp
  ${ONEFLOW_MULTIRANK_TEST_DIR}/LocalBoxingTest.cpp
  ${ONEFLOW_MULTIRANK_TEST_DIR}/LayoutSourcesTest.cpp
  ${ONEFLOW_MULTIRANK_TEST_DIR}/MultiRankTest.cpp
  ${ONEFLOW_MULTIRANK_TEST_DIR}/RankReportTest.cpp)
target_link_libraries(OneFlowMultiRankTests PRIVATE OneFlowRuntime
  OpenMP::OpenMP_CXX)
target_include_directories(OneFlowMultiRankTests PRIVATE
  ${PROJECT_SOURCE_DIR}/lib/Runtime)
