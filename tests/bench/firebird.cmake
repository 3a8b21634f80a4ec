# Firebird benchmark: FirebirdDriver vs a bare OO-API loop ("Test read all BLOBs").
# Included by tests/bench/CMakeLists.txt. Needs BLOBBENCH_FB_* (scripts/services/start-firebird).
add_executable(firebird_bench ${CMAKE_CURRENT_LIST_DIR}/firebird_bench.cpp)
target_link_libraries(firebird_bench PRIVATE blobbench_engine blobbench_warnings ${CMAKE_DL_LIBS})
target_include_directories(firebird_bench SYSTEM PRIVATE ${FIREBIRD_INCLUDE_DIR})
