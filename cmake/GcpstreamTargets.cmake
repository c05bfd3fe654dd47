# Helpers that give every gcpstream target the same flags and every test a label.

set(GCPSTREAM_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
# GCC 12 reports a string literal + std::string as an overlapping memcpy
# when enough is inlined around it (GCC bug 105651, fixed in 13): batches
# inline more, so the false positive is silenced there.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  list(APPEND GCPSTREAM_WARNING_FLAGS -Wno-restrict)
endif()
if(GCPSTREAM_WERROR)
  list(APPEND GCPSTREAM_WARNING_FLAGS -Werror)
endif()

# gcpstream_compile_in_batches(TARGET [BATCH_SIZE n] [PRELUDE header ...]
#                             [RENAME identifier ...])
# Replaces the target's .cc sources by batch files that #include several of
# them. CMake's own unity build includes them by absolute path, which puts the
# checkout's path into ccache's hash; these name them relative to an include
# directory (src/, or the generated code's root; other files relative to the
# batch file), so checkouts of one commit share ccache entries. A source with its own COMPILE_DEFINITIONS compiles
# alone. PRELUDE headers are included first; each RENAME identifier, a
# file-scope name every source defines (protoc's `schemas`), is renamed per
# source by a macro around its #include. Called at the end of the target's
# directory (deferred), once its sources' properties are all set.
function(gcpstream_compile_in_batches target)
  cmake_parse_arguments(ARG "" "BATCH_SIZE" "PRELUDE;RENAME" ${ARGN})
  if(NOT GCPSTREAM_UNITY_BUILD)
    return()
  endif()
  if(NOT ARG_BATCH_SIZE)
    set(ARG_BATCH_SIZE ${GCPSTREAM_BATCH_SIZE})
  endif()
  set(prelude "")
  foreach(header IN LISTS ARG_PRELUDE)
    string(APPEND prelude "#include <${header}>\n")
  endforeach()
  get_target_property(sources ${target} SOURCES)
  set(roots "${PROJECT_SOURCE_DIR}/src" "${GCPSTREAM_GENERATED_DIR}")
  set(batch "")
  set(batched "")
  set(index 0)
  set(in_batch 0)
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${target}_batches")
  list(LENGTH sources count)
  foreach(source IN LISTS sources)
    get_filename_component(path "${source}" ABSOLUTE)
    get_source_file_property(own_definitions "${source}" COMPILE_DEFINITIONS)
    set(relative "")
    foreach(root IN LISTS roots)
      string(FIND "${path}" "${root}/" at)
      if(at EQUAL 0)
        file(RELATIVE_PATH relative "${root}" "${path}")
      endif()
    endforeach()
    if(NOT relative)  # bench/: relative to the batch file itself
      file(RELATIVE_PATH relative "${dir}" "${path}")
    endif()
    if(path MATCHES "\\.cc$" AND NOT own_definitions)
      foreach(identifier IN LISTS ARG_RENAME)
        string(APPEND batch "#define ${identifier} ${identifier}_${in_batch}\n")
      endforeach()
      string(APPEND batch "#include \"${relative}\"\n")
      foreach(identifier IN LISTS ARG_RENAME)
        string(APPEND batch "#undef ${identifier}\n")
      endforeach()
      list(APPEND batched "${source}")
      math(EXPR in_batch "${in_batch} + 1")
    endif()
    math(EXPR count "${count} - 1")
    if(batch AND (in_batch EQUAL ARG_BATCH_SIZE OR count EQUAL 0))
      file(CONFIGURE OUTPUT "${dir}/batch_${index}.cc" CONTENT "${prelude}${batch}"
           @ONLY)
      target_sources(${target} PRIVATE "${dir}/batch_${index}.cc")
      math(EXPR index "${index} + 1")
      set(batch "")
      set(in_batch 0)
    endif()
  endforeach()
  if(batched)
    set_source_files_properties(${batched} PROPERTIES HEADER_FILE_ONLY ON)
  endif()
endfunction()

# Batches a target once its directory is done (a deferred call's arguments
# are read when it runs, hence the EVAL).
function(_gcpstream_defer_batches target)
  cmake_language(EVAL CODE
    "cmake_language(DEFER CALL gcpstream_compile_in_batches [[${target}]])")
endfunction()

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
  _gcpstream_defer_batches(gcpstream_${name})
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
  _gcpstream_defer_batches(${name})
  target_compile_options(${name} PRIVATE ${GCPSTREAM_WARNING_FLAGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
  if(ARG_OUTPUT_NAME)
    set_target_properties(${name} PROPERTIES OUTPUT_NAME ${ARG_OUTPUT_NAME})
  endif()
endfunction()

# gcpstream_add_test(NAME SOURCES ... [DEPS ...] [EMULATOR] [CRASH] [CHAOS]
#                    [TIMEOUT s] [COST s] [DEFINITIONS NAME=VALUE ...]
#                    [DEPENDS target ...])
# Unit tests carry the ctest label `unit`; tests that start emulators carry
# `emulator`; tests that kill and restart processes carry `crash`. A test
# named *_integration_test must pass EMULATOR and one named *_crash_test must
# pass CRASH, so the label always matches the file name. COST, the seconds a
# long test takes, makes ctest start it early (a fresh build directory has no
# measured costs), so that it does not end the run alone.
#
# Each NAME stays a ctest test of its own (its label, timeout, resource lock
# and process), but it is not an executable of its own: the tests of one
# directory, whatever their kind, are linked into one executable,
# `<dir>_tests`, whose sources compile in unity batches, and NAME runs it
# with a gtest filter naming the suites of NAME's sources. Linking ~100
# executables and parsing the generated googleapis headers once per test
# file was most of a cold build, and each batch still parses them once
# (docs/adr/0010-cold-build.md). DEFINITIONS that every test of an
# executable agrees on apply to the executable; one that differs between two
# tests is set on that test's sources, which then compile on their own.
function(gcpstream_add_test name)
  cmake_parse_arguments(ARG "EMULATOR;CRASH;CHAOS" "TIMEOUT;COST"
                        "SOURCES;DEPS;DEFINITIONS;DEPENDS" ${ARGN})
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
  if((name MATCHES "_chaos_test$") AND NOT ARG_CHAOS)
    message(FATAL_ERROR "${name}: chaos tests must be declared CHAOS")
  endif()
  if(ARG_CHAOS)
    # Faults injected between a pipeline and the emulators (or the scripted
    # services) it writes to.
    set(label chaos)
    set(default_timeout 600)
  elseif(ARG_CRASH)
    set(label crash)
    set(default_timeout 600)
  elseif(ARG_EMULATOR)
    set(label emulator)
    set(default_timeout 300)
  else()
    set(label unit)
    set(default_timeout 120)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT ${default_timeout})
  endif()

  set(sources "")
  set(suites "")
  foreach(source IN LISTS ARG_SOURCES)
    get_filename_component(source "${source}" ABSOLUTE)
    list(APPEND sources "${source}")
    if(source MATCHES "_test\\.cc$")
      # The filter is read from the file: a new suite reconfigures.
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${source}")
      file(STRINGS "${source}" declarations
           REGEX "^(TEST|TEST_F|TEST_P)\\([A-Za-z0-9_]+,")
      foreach(declaration IN LISTS declarations)
        string(REGEX REPLACE "^[A-Z_]+\\(([A-Za-z0-9_]+),.*$" "\\1" suite
                             "${declaration}")
        list(APPEND suites ${suite})
      endforeach()
    endif()
  endforeach()
  list(REMOVE_DUPLICATES suites)
  if(NOT suites)
    message(FATAL_ERROR "${name}: no TEST, TEST_F or TEST_P at the start of a "
                        "line in ${ARG_SOURCES}")
  endif()

  file(RELATIVE_PATH group "${PROJECT_SOURCE_DIR}/src/gcpstream"
       "${CMAKE_CURRENT_SOURCE_DIR}")
  string(REPLACE "/" "_" group "${group}")
  set(group "${group}_tests")
  get_property(groups DIRECTORY PROPERTY GCPSTREAM_TEST_GROUPS)
  if(NOT group IN_LIST groups)
    set_property(DIRECTORY APPEND PROPERTY GCPSTREAM_TEST_GROUPS ${group})
  endif()
  if(NOT groups)
    cmake_language(DEFER CALL _gcpstream_link_test_groups)
    cmake_language(DEFER CALL gcpstream_tests_wait_for_build)
  endif()
  set_property(DIRECTORY APPEND PROPERTY GCPSTREAM_TEST_GROUP_${group}_TESTS ${name})
  foreach(field SOURCES DEPS DEFINITIONS DEPENDS)
    set_property(DIRECTORY PROPERTY GCPSTREAM_TEST_${name}_${field} "${ARG_${field}}")
  endforeach()
  set_property(DIRECTORY PROPERTY GCPSTREAM_TEST_${name}_SOURCES "${sources}")
  set_property(DIRECTORY PROPERTY GCPSTREAM_TEST_${name}_SUITES "${suites}")

  list(TRANSFORM suites REPLACE "^(.+)$" "\\1.*:*/\\1.*" OUTPUT_VARIABLE filters)
  list(JOIN filters ":" filter)
  add_test(NAME ${name} COMMAND ${group} "--gtest_filter=${filter}")
  set_tests_properties(${name} PROPERTIES LABELS ${label} TIMEOUT ${ARG_TIMEOUT})
  if(ARG_COST)
    set_tests_properties(${name} PROPERTIES COST ${ARG_COST})
  endif()
  if(ARG_CRASH OR ARG_CHAOS)
    gcpstream_mark_timing_test(${name} ${group})
  endif()
endfunction()

# gcpstream_tests_wait_for_build(): every test of the current directory but
# the timing tests waits for the fixture `built` (the test wait_for_build),
# which returns at once unless scripts/test.sh runs the tests while the tree
# is still building. Called at the end of each directory that declares tests.
function(gcpstream_tests_wait_for_build)
  if(NOT BUILD_TESTING)
    return()
  endif()
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    get_test_property(${test} LABELS labels)
    if(NOT "timing" IN_LIST labels AND NOT test STREQUAL "wait_for_build")
      set_property(TEST ${test} APPEND PROPERTY FIXTURES_REQUIRED built)
    endif()
  endforeach()
endfunction()

# gcpstream_mark_timing_test(TEST TARGET): TEST kills processes at chosen
# moments or injects latency, so it runs one at a time (lock `timing`),
# beside any other test; plain emulator tests run several at a time, each
# with emulators of its own. Serialised, these tests are the longest chain
# of a test run, so scripts/test.sh builds `gcpstream_timing_tests` (TARGET
# and what it depends on) first and runs them (label `timing`) while the
# rest of the tree builds at a lower priority.
function(gcpstream_mark_timing_test name target)
  get_test_property(${name} LABELS labels)
  set_tests_properties(${name} PROPERTIES RESOURCE_LOCK timing
                       LABELS "${labels};timing")
  set_property(GLOBAL APPEND PROPERTY GCPSTREAM_TIMING_TEST_TARGETS ${target})
endfunction()

# Runs at the end of each directory that declared tests: one executable per
# group, its sources in unity batches.
function(_gcpstream_link_test_groups)
  get_property(groups DIRECTORY PROPERTY GCPSTREAM_TEST_GROUPS)
  foreach(group IN LISTS groups)
    get_property(tests DIRECTORY PROPERTY GCPSTREAM_TEST_GROUP_${group}_TESTS)
    set(sources "")
    set(deps "")
    set(depends "")
    set(suites "")
    set(owners "")
    set(macro_names "")
    foreach(test IN LISTS tests)
      foreach(field SOURCES DEPS DEFINITIONS DEPENDS SUITES)
        get_property(${field} DIRECTORY PROPERTY GCPSTREAM_TEST_${test}_${field})
      endforeach()
      list(APPEND sources ${SOURCES})
      list(APPEND deps ${DEPS})
      list(APPEND depends ${DEPENDS})
      foreach(suite IN LISTS SUITES)
        list(FIND suites ${suite} index)
        if(index GREATER_EQUAL 0)
          list(GET owners ${index} owner)
          message(FATAL_ERROR "test suite ${suite} is in both ${owner} and "
                  "${test}, which share the executable ${group}: rename one")
        endif()
        list(APPEND suites ${suite})
        list(APPEND owners ${test})
      endforeach()
      foreach(definition IN LISTS DEFINITIONS)
        string(REGEX REPLACE "=.*$" "" macro "${definition}")
        list(APPEND macro_names ${macro})
      endforeach()
    endforeach()
    list(REMOVE_DUPLICATES sources)
    list(REMOVE_DUPLICATES deps)
    list(REMOVE_DUPLICATES macro_names)

    add_executable(${group} ${sources})
    # Test code at -O1: a test batch compiles about 11 % faster than at -O2,
    # and tests spend their time in the libraries they test, which stay -O2.
    target_compile_options(${group} PRIVATE ${GCPSTREAM_WARNING_FLAGS}
                           $<$<CONFIG:Release>:-O1>)
    target_link_libraries(${group} PRIVATE ${deps} GTest::gmock GTest::gtest)
    # The main() that stops the emulators a test started (a no-op for the
    # tests that start none).
    target_link_libraries(${group} PRIVATE gcpstream::testing_emulator_main)
    if(depends)
      list(REMOVE_DUPLICATES depends)
      add_dependencies(${group} ${depends})
    endif()
    foreach(macro IN LISTS macro_names)
      set(values "")
      foreach(test IN LISTS tests)
        get_property(DEFINITIONS DIRECTORY PROPERTY GCPSTREAM_TEST_${test}_DEFINITIONS)
        list(FILTER DEFINITIONS INCLUDE REGEX "^${macro}=")
        list(APPEND values ${DEFINITIONS})
      endforeach()
      list(REMOVE_DUPLICATES values)
      list(LENGTH values count)
      if(count EQUAL 1)
        target_compile_definitions(${group} PRIVATE "${values}")
        continue()
      endif()
      foreach(test IN LISTS tests)
        get_property(DEFINITIONS DIRECTORY PROPERTY GCPSTREAM_TEST_${test}_DEFINITIONS)
        get_property(SOURCES DIRECTORY PROPERTY GCPSTREAM_TEST_${test}_SOURCES)
        foreach(definition IN LISTS DEFINITIONS)
          if(definition MATCHES "^${macro}=")
            set_property(SOURCE ${SOURCES} APPEND PROPERTY COMPILE_DEFINITIONS
                         "${definition}")
          endif()
        endforeach()
      endforeach()
    endforeach()
    gcpstream_compile_in_batches(${group})
  endforeach()
endfunction()
