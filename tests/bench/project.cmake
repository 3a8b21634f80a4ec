# Loading and saving a project with a long history (100,000 samples): time and peak memory.
add_executable(project_bench ${CMAKE_CURRENT_LIST_DIR}/project_bench.cpp)
target_link_libraries(project_bench PRIVATE blobbench_model blobbench_warnings)
