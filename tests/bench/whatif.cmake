# The What-if dock's cost on the UI thread (prints figures, asserts nothing): included from
# tests/bench/CMakeLists.txt; only with the GUI.
if(TARGET blobbench_ui)
  add_executable(whatif_bench ${CMAKE_CURRENT_LIST_DIR}/whatif_bench.cpp)
  target_link_libraries(whatif_bench PRIVATE blobbench_ui blobbench_warnings)
endif()
