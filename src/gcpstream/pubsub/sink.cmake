# Pub/Sub sink targets.
gcpstream_add_library(pubsub_sink
  SOURCES publish_engine.cc pubsub_dead_letter_queue.cc pubsub_sink_options.cc
          topic_creator.cc topic_publisher.cc
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
gcpstream_add_test(publisher_stub_test SOURCES publisher_stub_test.cc
  DEPS gcpstream::pubsub_sink)

# The dead-letter queue is the sink's engine with a fixed topic.
gcpstream_add_test(pubsub_dead_letter_queue_test
  SOURCES pubsub_dead_letter_queue_test.cc
  DEPS gcpstream::pubsub_sink gcpstream::testing)
gcpstream_add_test(pubsub_dead_letter_queue_integration_test EMULATOR
  SOURCES pubsub_dead_letter_queue_integration_test.cc
  DEPS gcpstream::pubsub_sink gcpstream::testing)
