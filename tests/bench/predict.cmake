# The link model's cost (prints figures, asserts nothing): included from tests/bench/CMakeLists.txt.
add_executable(predict_bench ${CMAKE_CURRENT_LIST_DIR}/predict_bench.cpp)
target_link_libraries(predict_bench PRIVATE blobbench_engine blobbench_warnings)
