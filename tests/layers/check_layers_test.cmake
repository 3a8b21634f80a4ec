# The engine's include check (engine/CheckLayers.cmake) passes on the tree as it is and fails, naming
# the file, the include and the rule, on a copy where a lower folder includes a higher one.
# cmake -DENGINE_DIR=... -DRULES=... -DWORK=... -P check_layers_test.cmake
cmake_minimum_required(VERSION 3.25)
set(check ${ENGINE_DIR}/CheckLayers.cmake)
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} -DENGINE_DIR=${ENGINE_DIR} -DRULES=${RULES} -DSTAMP=${WORK}/ok.stamp -P ${check}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the tree itself breaks the layering:\n${err}")
endif()

file(REMOVE_RECURSE ${WORK}/tree)
file(COPY ${ENGINE_DIR}/core ${ENGINE_DIR}/wire DESTINATION ${WORK}/tree/engine)
file(APPEND ${WORK}/tree/engine/wire/WireTap.h "#include \"engine/run/Runner.h\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -DENGINE_DIR=${WORK}/tree/engine -DRULES=${RULES} -DSTAMP=${WORK}/bad.stamp
                        -P ${check} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "engine/wire including engine/run was not refused")
endif()
string(REGEX REPLACE "[ \n]+" " " err "${err}")
if(NOT err MATCHES "engine/wire/WireTap.h: #include \"engine/run/Runner.h\": engine/wire may include only from wire, core")
  message(FATAL_ERROR "the refusal does not name the file, the include and the rule: ${err}")
endif()
message(STATUS "refused as expected: ${err}")
