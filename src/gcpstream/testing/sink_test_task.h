#ifndef GCPSTREAM_TESTING_SINK_TEST_TASK_H_
#define GCPSTREAM_TESTING_SINK_TEST_TASK_H_

// What a sink's tests need around a writer: the test thread standing in
// for a subtask's task thread (mailbox, metrics), and a failure handler
// that keeps what it is handed.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gcpstream/base/failure_handler.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/base/writer_context.h"
#include "gcpstream/runtime/mailbox.h"
#include "gcpstream/runtime/sink.h"
#include "gcpstream/runtime/task_signal.h"

namespace gcpstream::testing {

// Keeps every failed element it is handed.
template <typename F>
class RecordingHandler final : public FailureHandler<F> {
 public:
  explicit RecordingHandler(std::shared_ptr<std::vector<F>> out)
      : out_(std::move(out)) {}
  absl::Status Open(const FailureHandlerContext&) override {
    return absl::OkStatus();
  }
  absl::Status Handle(const F& failure) override {
    out_->push_back(failure);
    return absl::OkStatus();
  }
  absl::Status Flush() override { return absl::OkStatus(); }
  void Close() override {}

 private:
  std::shared_ptr<std::vector<F>> out_;
};

// A sink's handler factory making RecordingHandlers into `out`.
template <typename F>
auto RecordingFactory(const std::shared_ptr<std::vector<F>>& out) {
  return [out](const runtime::SinkWriterContext&)
             -> absl::StatusOr<std::unique_ptr<FailureHandler<F>>> {
    return std::make_unique<RecordingHandler<F>>(out);
  };
}

// The test thread stands in for a subtask's task thread.
class SinkTestTask {
 public:
  runtime::SinkWriterContext Context() {
    runtime::SinkWriterContext context;
    context.pipeline = "test";
    context.sink_name = "sink";
    context.mailbox = runtime::MailboxExecutor(&mailbox_);
    context.metrics = &registry_;
    return context;
  }

  template <typename T>
  absl::Status Write(runtime::SinkWriter<T>& writer, const T& record) {
    WriterContext context;
    context.record_position = position_++;
    return writer.Write(record, context);
  }

  // Writes every record, then flushes (not the end of input).
  template <typename T>
  absl::Status WriteAll(runtime::SinkWriter<T>& writer,
                        const std::vector<T>& records) {
    for (const T& record : records) {
      if (absl::Status status = Write(writer, record); !status.ok()) {
        return status;
      }
    }
    return writer.Flush(/*end_of_input=*/false);
  }

  // The value of the one series of `metric`, as a scraper reads it; "" when
  // absent.
  std::string Metric(absl::string_view metric) const {
    for (absl::string_view line :
         absl::StrSplit(registry_.ExportPrometheusText(), '\n')) {
      if (absl::StartsWith(line, absl::StrCat(metric, "{"))) {
        return std::string(line.substr(line.rfind(' ') + 1));
      }
    }
    return "";
  }

  // Where the writers' metrics are (also for binding committers).
  MetricsRegistry& registry() { return registry_; }

  runtime::MailboxExecutor executor() {
    return runtime::MailboxExecutor(&mailbox_);
  }

 private:
  runtime::Mailbox mailbox_{std::make_shared<runtime::TaskSignal>()};
  MetricsRegistry registry_;
  int64_t position_ = 0;
};

}  // namespace gcpstream::testing

#endif  // GCPSTREAM_TESTING_SINK_TEST_TASK_H_
