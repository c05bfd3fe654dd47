#ifndef GCPSTREAM_PUBSUB_PUBSUB_FAILED_ELEMENT_H_
#define GCPSTREAM_PUBSUB_PUBSUB_FAILED_ELEMENT_H_

#include <string>

#include "absl/status/status.h"
#include "gcpstream/base/failed_element.h"
#include "google/pubsub/v1/pubsub.pb.h"

namespace gcpstream::pubsub {

// A record the Pub/Sub sink could not publish. The payload is the message
// data (nullopt when the serializer itself failed), the attributes are the
// message's attributes.
struct PubSubFailedElement : FailedElement {
  std::string ordering_key;

  // What the sink hands its failure handler for a message `topic_name`
  // refused with `status` after `attempts`.
  static PubSubFailedElement Of(
      const std::string& topic_name,
      const google::pubsub::v1::PubsubMessage& message,
      const absl::Status& status, int attempts) {
    PubSubFailedElement failed;
    failed.destination = topic_name;
    failed.status = status;
    failed.attempts = attempts;
    failed.payload = message.data();
    failed.attributes.insert(message.attributes().begin(),
                             message.attributes().end());
    failed.ordering_key = message.ordering_key();
    return failed;
  }
};

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_PUBSUB_FAILED_ELEMENT_H_
