# Pub/Sub source targets.
gcpstream_add_library(pubsub_source
  SOURCES pubsub_source_options.cc pull_reader.cc source_splits.cc
          subscription_admin.cc
  DEPS gcpstream::pubsub gcpstream::base gcpstream::runtime gcpstream::auth
       gcpstream::googleapis gRPC::grpc++ protobuf::libprotobuf absl::status
       absl::statusor absl::strings absl::synchronization absl::time
       spdlog::spdlog)

gcpstream_add_test(pubsub_source_integration_test EMULATOR
  SOURCES pubsub_source_integration_test.cc
  DEPS gcpstream::pubsub_source gcpstream::pubsub_sink
       gcpstream::runtime_connectors gcpstream::testing gcpstream::emulators)

gcpstream_add_test(pubsub_source_test SOURCES pubsub_source_test.cc
  DEPS gcpstream::pubsub_source gcpstream::testing)
