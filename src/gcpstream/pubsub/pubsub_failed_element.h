#ifndef GCPSTREAM_PUBSUB_PUBSUB_FAILED_ELEMENT_H_
#define GCPSTREAM_PUBSUB_PUBSUB_FAILED_ELEMENT_H_

#include <string>

#include "gcpstream/base/failed_element.h"

namespace gcpstream::pubsub {

// A record the Pub/Sub sink could not publish. The payload is the message
// data (nullopt when the serializer itself failed), the attributes are the
// message's attributes.
struct PubSubFailedElement : FailedElement {
  std::string ordering_key;
};

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_PUBSUB_FAILED_ELEMENT_H_
