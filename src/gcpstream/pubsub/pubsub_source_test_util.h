#ifndef GCPSTREAM_PUBSUB_PUBSUB_SOURCE_TEST_UTIL_H_
#define GCPSTREAM_PUBSUB_PUBSUB_SOURCE_TEST_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gcpstream/pubsub/pubsub_source.h"
#include "google/pubsub/v1/pubsub.pb.h"

namespace gcpstream::pubsub::testing {

// Messages carry a number; anything else fails deserialization.
inline MessageDeserializer<int64_t> NumberDeserializer() {
  return [](const google::pubsub::v1::PubsubMessage& message,
            std::vector<int64_t>& out) {
    int64_t value = 0;
    if (!absl::SimpleAtoi(message.data(), &value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", message.data(), "' is not a number"));
    }
    out.push_back(value);
    return absl::OkStatus();
  };
}

// Collects what a reader emits, with the event times given.
class VectorOutput final : public runtime::ReaderOutput<int64_t> {
 public:
  void Collect(int64_t value) override { values.push_back(value); }
  void Collect(int64_t value, absl::Time event_time) override {
    values.push_back(value);
    times.push_back(event_time);
  }
  std::vector<int64_t> values;
  std::vector<absl::Time> times;
};

}  // namespace gcpstream::pubsub::testing

#endif  // GCPSTREAM_PUBSUB_PUBSUB_SOURCE_TEST_UTIL_H_
