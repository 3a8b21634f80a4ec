# Storage benchmark: the SQLite keyed-read paths against a bare sqlite3 loop, the files store against a
# bare open/read/close loop, SQLite inserts against a bare insert loop, same run; prints the ratios and
# the SQLite-vs-files figures. Run: storage_bench [--count N] [--reps N] [--dir DIR]
add_executable(storage_bench ${CMAKE_CURRENT_LIST_DIR}/storage_bench.cpp)
target_link_libraries(storage_bench PRIVATE blobbench_engine blobbench_warnings SQLite::SQLite3)

# Insert throughput on the servers: the study's PostgreSQL and Firebird paths against bare client loops.
# Run: BLOBBENCH_PG_CONNINFO=... BLOBBENCH_FB_DATABASE=... storage_insert_bench [--rows N] [--commit-every K]
add_executable(storage_insert_bench ${CMAKE_CURRENT_LIST_DIR}/storage_insert_bench.cpp)
target_link_libraries(storage_insert_bench PRIVATE blobbench_engine blobbench_warnings PostgreSQL::PostgreSQL
                      ${CMAKE_DL_LIBS})
target_include_directories(storage_insert_bench SYSTEM PRIVATE ${FIREBIRD_INCLUDE_DIR})
