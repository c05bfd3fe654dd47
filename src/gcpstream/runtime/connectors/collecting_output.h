#ifndef GCPSTREAM_RUNTIME_CONNECTORS_COLLECTING_OUTPUT_H_
#define GCPSTREAM_RUNTIME_CONNECTORS_COLLECTING_OUTPUT_H_

#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "gcpstream/runtime/source.h"

namespace gcpstream::runtime {

// Test helper: a ReaderOutput that keeps every record, so a test can drive a
// SourceReader directly, without an engine.
template <typename T>
class CollectingOutput final : public ReaderOutput<T> {
 public:
  void Collect(T value) override { values.push_back(std::move(value)); }
  void Collect(T value, absl::Time /*event_time*/) override {
    values.push_back(std::move(value));
  }

  std::vector<T> values;
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CONNECTORS_COLLECTING_OUTPUT_H_
