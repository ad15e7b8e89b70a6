add_oneflow_unittest(OneFlowEngineTests
  Engine/EngineTest.cpp
  Engine/RandomPlansTest.cpp
  Engine/ProgramTest.cpp)
target_link_libraries(OneFlowEngineTests PRIVATE OneFlowRuntime)
