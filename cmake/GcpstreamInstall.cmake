# What `cmake --install` puts where (see docs/install.md): headers, the static
# libraries of every layer (googleapis' generated code included), the
# `gcpstream` CLI, a CMake package with one imported target per layer, and a
# pkg-config file. Test-support libraries and headers stay out.

include(CMakePackageConfigHelpers)

set(GCPSTREAM_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/gcpstream")

# gcpstream's own headers, minus those that only serve its tests.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/src/gcpstream"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT dev
        FILES_MATCHING PATTERN "*.h"
        PATTERN "testing" EXCLUDE
        PATTERN "chaos" EXCLUDE
        PATTERN "crash_test" EXCLUDE
        PATTERN "*test_util.h" EXCLUDE
        PATTERN "*test_support.h" EXCLUDE
        PATTERN "*_fixture.h" EXCLUDE
        PATTERN "testing_files.h" EXCLUDE)
# Generated headers (googleapis protos, Parquet's Thrift footer) under their
# own root, so they never shadow a user's copy of googleapis.
install(DIRECTORY "${GCPSTREAM_GENERATED_DIR}/"
        DESTINATION "${GCPSTREAM_INSTALL_GENERATED_INCLUDEDIR}" COMPONENT dev
        FILES_MATCHING PATTERN "*.h")

# The connectors a pipeline file can name register themselves from static
# objects; CMake users get them as an imported OBJECT library, pkg-config
# users as this archive, which the .pc file links whole.
add_library(gcpstream_pipeline_connectors STATIC
            $<TARGET_OBJECTS:gcpstream_config_connectors>)
install(TARGETS gcpstream_pipeline_connectors
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT dev)
gcpstream_install_library(gcpstream_config_connectors)

install(TARGETS gcpstream_cli RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
        COMPONENT cli)

install(EXPORT gcpstreamTargets NAMESPACE gcpstream::
        DESTINATION "${GCPSTREAM_INSTALL_CMAKEDIR}" COMPONENT dev)
configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/gcpstreamConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/gcpstreamConfig.cmake"
  INSTALL_DESTINATION "${GCPSTREAM_INSTALL_CMAKEDIR}")
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/gcpstreamConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/gcpstreamConfig.cmake"
              "${PROJECT_BINARY_DIR}/gcpstreamConfigVersion.cmake"
        DESTINATION "${GCPSTREAM_INSTALL_CMAKEDIR}" COMPONENT dev)

# pkg-config: every archive in one link group (their order then does not
# matter), the pipeline connectors linked whole, and the system libraries
# they need as Requires.
get_property(installed GLOBAL PROPERTY GCPSTREAM_INSTALLED_LIBRARIES)
set(GCPSTREAM_PC_LIBS "")
foreach(target IN LISTS installed)
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "STATIC_LIBRARY")
    string(APPEND GCPSTREAM_PC_LIBS " -l${target}")
  endif()
endforeach()
set(GCPSTREAM_PC_ABSL "")
foreach(module flat_hash_map flat_hash_set hash inlined_vector int128
               node_hash_map random_random span status statusor str_format
               strings synchronization time)
  string(APPEND GCPSTREAM_PC_ABSL " absl_${module}")
endforeach()
file(RELATIVE_PATH GCPSTREAM_PC_TO_PREFIX
     "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
configure_file("${PROJECT_SOURCE_DIR}/cmake/gcpstream.pc.in"
               "${PROJECT_BINARY_DIR}/gcpstream.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/gcpstream.pc"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig" COMPONENT dev)
