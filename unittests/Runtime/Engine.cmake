find_package(OpenMP REQUIRED)
add_oneflow_unittest(OneFlowEngineTests
  Engine/EngineTest.cpp
  Engine/AsyncDeviceTest.cpp
  Engine/AsyncPlansTest.cpp
  Engine/RandomPlansTest.cpp
  Engine/ProgramTest.cpp
  Engine/SessionTest.cpp
  Engine/NpyTest.cpp
  Engine/CheckpointTest.cpp)
target_link_libraries(OneFlowEngineTests PRIVATE OneFlowRuntime
  OpenMP::OpenMP_CXX)
