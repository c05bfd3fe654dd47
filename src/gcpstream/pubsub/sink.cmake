# Pub/Sub sink targets.
gcpstream_add_library(pubsub_sink
  SOURCES publish_engine.cc pubsub_sink_options.cc topic_creator.cc
          topic_publisher.cc
  DEPS gcpstream::pubsub gcpstream::base gcpstream::runtime gcpstream::connector
       gcpstream::auth
       gcpstream::googleapis gRPC::grpc++ protobuf::libprotobuf
       absl::node_hash_map absl::status absl::statusor absl::strings
       absl::synchronization absl::time spdlog::spdlog)

gcpstream_add_test(pubsub_sink_test SOURCES pubsub_sink_test.cc
  DEPS gcpstream::pubsub_sink gcpstream::testing)
gcpstream_add_test(pubsub_sink_topic_test SOURCES pubsub_sink_topic_test.cc
  DEPS gcpstream::pubsub_sink gcpstream::testing)

gcpstream_add_test(pubsub_sink_integration_test EMULATOR
  SOURCES pubsub_sink_integration_test.cc
  DEPS gcpstream::pubsub_sink gcpstream::runtime_connectors gcpstream::testing
       gcpstream::emulators)
