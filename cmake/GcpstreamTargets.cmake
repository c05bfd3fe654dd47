# Helpers that give every gcpstream target the same flags and every test a label.

set(GCPSTREAM_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
if(GCPSTREAM_WERROR)
  list(APPEND GCPSTREAM_WARNING_FLAGS -Werror)
endif()

# gcpstream_install_library(TARGET): installs a library into the exported
# package, where it is gcpstream::<name> (the target's name without the
# gcpstream_ prefix), the same name the build tree's alias gives it.
function(gcpstream_install_library target)
  string(REGEX REPLACE "^gcpstream_" "" export_name "${target}")
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
  install(TARGETS ${target} EXPORT gcpstreamTargets
          ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT dev
          OBJECTS DESTINATION "${CMAKE_INSTALL_LIBDIR}/gcpstream/objects"
                  COMPONENT dev)
  set_property(GLOBAL APPEND PROPERTY GCPSTREAM_INSTALLED_LIBRARIES ${target})
endfunction()

# gcpstream_add_library(NAME SOURCES ... [DEPS ...] [INTERNAL])
# One static library per layer, named gcpstream_<layer>, aliased
# gcpstream::<layer>, and installed under that name unless it only serves
# tests or benchmarks (INTERNAL: never installed, and no installed library
# may link it).
function(gcpstream_add_library name)
  cmake_parse_arguments(ARG "INTERNAL" "" "SOURCES;DEPS" ${ARGN})
  add_library(gcpstream_${name} STATIC ${ARG_SOURCES})
  add_library(gcpstream::${name} ALIAS gcpstream_${name})
  target_include_directories(gcpstream_${name} PUBLIC
    "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>"
    "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
  target_compile_options(gcpstream_${name} PRIVATE ${GCPSTREAM_WARNING_FLAGS})
  target_link_libraries(gcpstream_${name} PUBLIC ${ARG_DEPS})
  if(NOT ARG_INTERNAL)
    gcpstream_install_library(gcpstream_${name})
  endif()
endfunction()

# gcpstream_add_executable(NAME SOURCES ... [DEPS ...])
function(gcpstream_add_executable name)
  cmake_parse_arguments(ARG "" "OUTPUT_NAME" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_compile_options(${name} PRIVATE ${GCPSTREAM_WARNING_FLAGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
  if(ARG_OUTPUT_NAME)
    set_target_properties(${name} PROPERTIES OUTPUT_NAME ${ARG_OUTPUT_NAME})
  endif()
endfunction()

# gcpstream_add_test(NAME SOURCES ... [DEPS ...] [EMULATOR] [CRASH])
# Unit tests carry the ctest label `unit`; tests that start emulators carry
# `emulator`; tests that kill and restart processes carry `crash`. A test
# binary named *_integration_test must pass EMULATOR and one named
# *_crash_test must pass CRASH, so the label always matches the file name.
function(gcpstream_add_test name)
  cmake_parse_arguments(ARG "EMULATOR;CRASH;CHAOS" "TIMEOUT" "SOURCES;DEPS"
                        ${ARGN})
  if(NOT BUILD_TESTING)
    return()
  endif()
  if(name MATCHES "_integration_test$" AND NOT ARG_EMULATOR)
    message(FATAL_ERROR "${name}: integration tests must be declared EMULATOR")
  endif()
  if(NOT name MATCHES "_integration_test$" AND ARG_EMULATOR AND NOT ARG_CRASH
     AND NOT ARG_CHAOS)
    message(FATAL_ERROR "${name}: emulator tests must be named *_integration_test")
  endif()
  if((name MATCHES "_crash_test$") AND NOT ARG_CRASH)
    message(FATAL_ERROR "${name}: crash tests must be declared CRASH")
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_compile_options(${name} PRIVATE ${GCPSTREAM_WARNING_FLAGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest)
  if((name MATCHES "_chaos_test$") AND NOT ARG_CHAOS)
    message(FATAL_ERROR "${name}: chaos tests must be declared CHAOS")
  endif()
  if(ARG_CHAOS)
    # Faults injected between a pipeline and the emulators (or the scripted
    # services) it writes to.
    if(ARG_EMULATOR)
      target_link_libraries(${name} PRIVATE gcpstream::testing_emulator_main)
    else()
      target_link_libraries(${name} PRIVATE GTest::gmock_main)
    endif()
    set(label chaos)
    set(default_timeout 600)
  elseif(ARG_EMULATOR AND ARG_CRASH)
    # A crash test against emulators the test binary starts and stops.
    target_link_libraries(${name} PRIVATE gcpstream::testing_emulator_main)
    set(label crash)
    set(default_timeout 600)
  elseif(ARG_EMULATOR)
    target_link_libraries(${name} PRIVATE gcpstream::testing_emulator_main)
    set(label emulator)
    set(default_timeout 300)
  elseif(ARG_CRASH)
    target_link_libraries(${name} PRIVATE GTest::gmock_main)
    set(label crash)
    set(default_timeout 600)
  else()
    target_link_libraries(${name} PRIVATE GTest::gmock_main)
    set(label unit)
    set(default_timeout 120)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT ${default_timeout})
  endif()
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS ${label} TIMEOUT ${ARG_TIMEOUT})
  if(ARG_EMULATOR)
    # Emulators are memory and CPU hungry (the Pub/Sub one is a JVM); two at a
    # time on a 2-core machine is the ceiling, so the resource lock serialises
    # emulator binaries while unit tests still run beside them.
    set_tests_properties(${name} PROPERTIES RESOURCE_LOCK emulators)
  endif()
endfunction()
