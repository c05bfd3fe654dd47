#ifndef GCPSTREAM_RUNTIME_OUTPUT_H_
#define GCPSTREAM_RUNTIME_OUTPUT_H_

#include <memory>
#include <utility>
#include <vector>

#include "gcpstream/runtime/stream_element.h"

namespace gcpstream::runtime {

// The input side of an operator chained into a task: records are pushed
// through a chain of Outputs by plain virtual calls, with no queue between
// chained operators.
template <typename T>
class Output {
 public:
  virtual ~Output() = default;
  virtual void Collect(StreamRecord<T>&& record) = 0;
};

// What a FlatMap function emits into.
template <typename U>
class Collector {
 public:
  explicit Collector(Output<U>* output, int64_t timestamp)
      : output_(output), timestamp_(timestamp) {}
  // Emitted records keep the input record's event time.
  void Collect(U value) {
    output_->Collect(StreamRecord<U>{std::move(value), timestamp_});
  }

 private:
  Output<U>* output_;
  int64_t timestamp_;
};

template <typename T, typename U, typename F>
class MapOutput final : public Output<T> {
 public:
  MapOutput(F f, std::shared_ptr<Output<U>> next)
      : f_(std::move(f)), next_(std::move(next)) {}
  void Collect(StreamRecord<T>&& record) override {
    next_->Collect(
        StreamRecord<U>{f_(std::move(record.value)), record.timestamp});
  }

 private:
  F f_;
  std::shared_ptr<Output<U>> next_;
};

template <typename T, typename U, typename F>
class FlatMapOutput final : public Output<T> {
 public:
  FlatMapOutput(F f, std::shared_ptr<Output<U>> next)
      : f_(std::move(f)), next_(std::move(next)) {}
  void Collect(StreamRecord<T>&& record) override {
    Collector<U> collector(next_.get(), record.timestamp);
    f_(std::move(record.value), collector);
  }

 private:
  F f_;
  std::shared_ptr<Output<U>> next_;
};

template <typename T, typename F>
class FilterOutput final : public Output<T> {
 public:
  FilterOutput(F f, std::shared_ptr<Output<T>> next)
      : f_(std::move(f)), next_(std::move(next)) {}
  void Collect(StreamRecord<T>&& record) override {
    if (f_(static_cast<const T&>(record.value))) {
      next_->Collect(std::move(record));
    }
  }

 private:
  F f_;
  std::shared_ptr<Output<T>> next_;
};

// Several consumers of one stream (e.g. two sinks): all but the last get a
// copy.
template <typename T>
class FanOutOutput final : public Output<T> {
 public:
  explicit FanOutOutput(std::vector<std::shared_ptr<Output<T>>> outputs)
      : outputs_(std::move(outputs)) {}
  void Collect(StreamRecord<T>&& record) override {
    for (size_t i = 0; i + 1 < outputs_.size(); ++i) {
      outputs_[i]->Collect(StreamRecord<T>(record));
    }
    outputs_.back()->Collect(std::move(record));
  }

 private:
  std::vector<std::shared_ptr<Output<T>>> outputs_;
};

// A stream nobody consumes.
template <typename T>
class DiscardOutput final : public Output<T> {
 public:
  void Collect(StreamRecord<T>&& /*record*/) override {}
};

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_OUTPUT_H_
