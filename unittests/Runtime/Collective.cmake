##===- Collective.cmake - Collective library tests -------*- cmake -*-===//
#
# The conformance suite every collective library runs unchanged (inproc and
# gloo here; mpi under mpirun, test/Run/mpi-collectives.test). Included
# from unittests/Runtime/CMakeLists.txt.
##===----------------------------------------------------------------===//
add_oneflow_unittest(OneFlowCollectiveTests Collective/ConformanceTest.cpp
  Collective/ConformanceFailureTest.cpp
  Collective/StoreTest.cpp)
target_link_libraries(OneFlowCollectiveTests PRIVATE OneFlowBackends
  OneFlowCollectives)
