# WireTap benchmarks (prints figures, asserts nothing): included from tests/bench/CMakeLists.txt.
add_executable(wire_bench ${CMAKE_CURRENT_LIST_DIR}/wire_bench.cpp)
target_link_libraries(wire_bench PRIVATE blobbench_engine PostgreSQL::PostgreSQL)
if(TARGET blobbench_warnings)
  target_link_libraries(wire_bench PRIVATE blobbench_warnings)
endif()
