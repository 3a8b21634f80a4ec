# Many sessions: SessionRunner against bare libpq threads, same statement, same run (issue #25).
# Included from tests/bench/CMakeLists.txt. Run: BLOBBENCH_PG_CONNINFO=... sessions_bench [--sessions N] [--seconds S]
add_executable(sessions_bench ${CMAKE_CURRENT_LIST_DIR}/sessions_bench.cpp)
target_link_libraries(sessions_bench PRIVATE blobbench_engine blobbench_warnings PostgreSQL::PostgreSQL)
