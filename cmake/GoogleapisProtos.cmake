# Generates C++ and gRPC code for the googleapis protos gcpstream talks to.
#
# The .proto files come from the npm package `google-proto-files`, pinned in
# package.json / package-lock.json and installed by scripts/setup.sh. Only the
# import closure of the service directories below is compiled. The well-known
# types (google/protobuf/*) come from the system protobuf so that generated
# code always matches the runtime library it links against.

set(GCPSTREAM_GOOGLEAPIS_PROTO_DIR
    "${PROJECT_SOURCE_DIR}/node_modules/google-proto-files"
    CACHE PATH "Root of the googleapis .proto tree (google-proto-files npm package)")

if(NOT EXISTS "${GCPSTREAM_GOOGLEAPIS_PROTO_DIR}/google/pubsub/v1/pubsub.proto")
  message(FATAL_ERROR
    "googleapis protos not found under GCPSTREAM_GOOGLEAPIS_PROTO_DIR="
    "${GCPSTREAM_GOOGLEAPIS_PROTO_DIR}. Run scripts/setup.sh (it runs `npm ci`).")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             "${PROJECT_SOURCE_DIR}/package-lock.json")

set(GCPSTREAM_GOOGLEAPIS_SERVICE_DIRS
    google/pubsub/v1
    google/spanner/v1
    google/spanner/admin/database/v1
    google/spanner/admin/instance/v1
    google/bigtable/v2
    google/bigtable/admin/v2
    google/cloud/bigquery/storage/v1
    google/cloud/tasks/v2)

find_program(GCPSTREAM_GRPC_CPP_PLUGIN grpc_cpp_plugin REQUIRED)

# Breadth-first walk of `import` statements from the service directories.
set(pending "")
foreach(dir IN LISTS GCPSTREAM_GOOGLEAPIS_SERVICE_DIRS)
  file(GLOB protos RELATIVE "${GCPSTREAM_GOOGLEAPIS_PROTO_DIR}"
       "${GCPSTREAM_GOOGLEAPIS_PROTO_DIR}/${dir}/*.proto")
  list(APPEND pending ${protos})
endforeach()
set(closure "")
while(pending)
  list(POP_FRONT pending proto)
  if(proto IN_LIST closure OR proto MATCHES "^google/protobuf/")
    continue()
  endif()
  if(NOT EXISTS "${GCPSTREAM_GOOGLEAPIS_PROTO_DIR}/${proto}")
    message(FATAL_ERROR "googleapis import ${proto} is missing from ${GCPSTREAM_GOOGLEAPIS_PROTO_DIR}")
  endif()
  list(APPEND closure ${proto})
  file(STRINGS "${GCPSTREAM_GOOGLEAPIS_PROTO_DIR}/${proto}" imports
       REGEX "^import[ \t]+(public[ \t]+)?\"[^\"]+\"")
  foreach(line IN LISTS imports)
    string(REGEX REPLACE "^import[ \t]+(public[ \t]+)?\"([^\"]+)\".*$" "\\2" dep "${line}")
    list(APPEND pending ${dep})
  endforeach()
endwhile()
list(SORT closure)

set(GCPSTREAM_GENERATED_DIR "${PROJECT_BINARY_DIR}/generated")
set(generated_sources "")
foreach(proto IN LISTS closure)
  string(REGEX REPLACE "\\.proto$" "" stem "${proto}")
  set(outputs "${GCPSTREAM_GENERATED_DIR}/${stem}.pb.cc" "${GCPSTREAM_GENERATED_DIR}/${stem}.pb.h")
  set(plugin_args "")
  file(STRINGS "${GCPSTREAM_GOOGLEAPIS_PROTO_DIR}/${proto}" services REGEX "^service[ \t]")
  if(services)
    list(APPEND outputs "${GCPSTREAM_GENERATED_DIR}/${stem}.grpc.pb.cc"
                        "${GCPSTREAM_GENERATED_DIR}/${stem}.grpc.pb.h")
    set(plugin_args --grpc_out=${GCPSTREAM_GENERATED_DIR}
                    --plugin=protoc-gen-grpc=${GCPSTREAM_GRPC_CPP_PLUGIN})
  endif()
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${GCPSTREAM_GENERATED_DIR}"
    COMMAND protobuf::protoc
            -I "${GCPSTREAM_GOOGLEAPIS_PROTO_DIR}" -I "${Protobuf_INCLUDE_DIRS}"
            --cpp_out=${GCPSTREAM_GENERATED_DIR} ${plugin_args}
            "${proto}"
    DEPENDS "${GCPSTREAM_GOOGLEAPIS_PROTO_DIR}/${proto}" protobuf::protoc
    COMMENT "protoc ${proto}"
    VERBATIM)
  foreach(out IN LISTS outputs)
    if(out MATCHES "\\.cc$")
      list(APPEND generated_sources "${out}")
    endif()
  endforeach()
endforeach()

list(LENGTH closure closure_size)
message(STATUS "gcpstream: compiling ${closure_size} googleapis protos")

add_library(gcpstream_googleapis STATIC ${generated_sources})
add_library(gcpstream::googleapis ALIAS gcpstream_googleapis)
# Generated code is not ours: no warnings from it, and SYSTEM so its headers
# do not trigger warnings in the code that includes them.
target_compile_options(gcpstream_googleapis PRIVATE -w)
target_include_directories(gcpstream_googleapis SYSTEM PUBLIC
  "$<BUILD_INTERFACE:${GCPSTREAM_GENERATED_DIR}>"
  "$<INSTALL_INTERFACE:${GCPSTREAM_INSTALL_GENERATED_INCLUDEDIR}>")
target_link_libraries(gcpstream_googleapis PUBLIC gRPC::grpc++ protobuf::libprotobuf)
# protoc gives every file two arrays of the same name at file scope: renamed
# per file so that files can share a batch.
gcpstream_compile_in_batches(gcpstream_googleapis
  PRELUDE google/protobuf/io/coded_stream.h google/protobuf/extension_set.h
          google/protobuf/wire_format_lite.h google/protobuf/descriptor.h
          google/protobuf/generated_message_reflection.h
          google/protobuf/reflection_ops.h google/protobuf/wire_format.h
  RENAME schemas file_default_instances)
gcpstream_install_library(gcpstream_googleapis)
