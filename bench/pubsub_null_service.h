#ifndef GCPSTREAM_BENCH_PUBSUB_NULL_SERVICE_H_
#define GCPSTREAM_BENCH_PUBSUB_NULL_SERVICE_H_

#include <cstddef>

#include "bench/forked_server.h"

namespace gcpstream::bench {

// A Pub/Sub that accepts everything and stores nothing. Publish
// answers with one id per message; GetTopic and GetSubscription find
// anything; Acknowledge and ModifyAckDeadline succeed; StreamingPull sends
// responses of 100 messages of `message_bytes` data each (distinct ack ids
// within a cycle of 64 prebuilt responses) as fast as the client reads,
// until the client half-closes or cancels.
ForkedServer StartNullPubSub(size_t message_bytes);

}  // namespace gcpstream::bench

#endif  // GCPSTREAM_BENCH_PUBSUB_NULL_SERVICE_H_
