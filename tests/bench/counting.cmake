# The cost of counting the wire, in-process vs relay vs none (prints figures, asserts nothing).
add_executable(counting_bench ${CMAKE_CURRENT_LIST_DIR}/counting_bench.cpp)
target_link_libraries(counting_bench PRIVATE blobbench_engine)
if(TARGET blobbench_warnings)
  target_link_libraries(counting_bench PRIVATE blobbench_warnings)
endif()
