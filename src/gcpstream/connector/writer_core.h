#ifndef GCPSTREAM_CONNECTOR_WRITER_CORE_H_
#define GCPSTREAM_CONNECTOR_WRITER_CORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/base/failed_element.h"
#include "gcpstream/base/failure_handler.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/base/rejection_confirmation.h"
#include "gcpstream/base/status_class.h"
#include "gcpstream/base/writer_context.h"
#include "gcpstream/connector/metric_set.h"
#include "gcpstream/runtime/sink.h"

namespace gcpstream::connector {

// What is fixed per connector: its name and its error counters.
struct ConnectorName {
  absl::string_view name;
  absl::string_view error_metric_prefix;
  absl::string_view error_metric_help;
};

struct WriterCoreOptions {
  // The fields every sink's options have (`name`,
  // `max_consecutive_rejections`) taken from them.
  template <typename SinkOptions>
  static WriterCoreOptions For(const ConnectorName& connector,
                               const SinkOptions& options,
                               const ClassificationTable& classification,
                               const Clock& clock) {
    return WriterCoreOptions{
        .connector = std::string(connector.name),
        .sink_name = options.name,
        .classification = &classification,
        .max_consecutive_rejections = options.max_consecutive_rejections,
        .error_metric_prefix = std::string(connector.error_metric_prefix),
        .error_metric_help = std::string(connector.error_metric_help),
        .clock = &clock};
  }

  // Lower-case connector name ("pubsub"): FailedElement::connector and the
  // failure handler's context.
  std::string connector{};
  // The sink's name, which starts every error of the writer.
  std::string sink_name{};
  // The connector's classification; rejection confirmation reads it.
  const ClassificationTable* classification = nullptr;
  int64_t max_consecutive_rejections =
      RejectionConfirmation::kDefaultMaxConsecutiveRejections;
  // Per-code error counters are named <prefix><code in lower case>, e.g.
  // "publish_errors_unavailable", registered on first use.
  std::string error_metric_prefix{};
  std::string error_metric_help{};
  // Failure times and flush durations; null means RealClock.
  const Clock* clock = nullptr;
};

// What every sink writer has whatever its service: the metrics registry
// (the context's, or a private one so a writer without one still counts),
// labels, the standard sink metrics, per-code error counters, rejection
// confirmation, and the first-failure latch. Task thread only.
class WriterCoreBase {
 public:
  WriterCoreBase(const WriterCoreBase&) = delete;
  WriterCoreBase& operator=(const WriterCoreBase&) = delete;

  // Where connector-specific metrics register.
  MetricsRegistry& registry() { return *registry_; }
  // Registers the connector's own metrics under the writer's labels.
  MetricSet ConnectorMetrics() { return MetricSet(*registry_, labels_); }
  const MetricLabels& labels() const { return labels_; }
  SinkMetrics& metrics() { return metrics_; }
  RejectionConfirmation& rejection() { return *rejection_; }
  const Clock& clock() const { return *clock_; }
  int subtask_index() const { return subtask_index_; }
  const std::string& sink_name() const { return options_.sink_name; }
  const std::string& connector() const { return options_.connector; }

  // The writer's first failure (OK while it has none). Once failed, a
  // writer sends nothing more and every call returns this status.
  const absl::Status& failure() const { return failure_; }
  bool failed() const { return !failure_.ok(); }
  // Records `status` if it is the first failure; returns the first one.
  const absl::Status& Fail(const absl::Status& status);

  // Counts a refusal of a request or entry by its code.
  void CountError(const absl::Status& status);
  void CountIn() { metrics_.records_in->Increment(); }
  void CountSkipped() { metrics_.records_skipped->Increment(); }

 protected:
  WriterCoreBase() = default;
  ~WriterCoreBase() = default;

  absl::Status InitBase(WriterCoreOptions options,
                        const runtime::SinkWriterContext& context);
  FailureHandlerContext HandlerContext() const;
  // Fills what every routed element has. False when `failed` must not be
  // routed: a status marked IsRetryExhausted means retries ended without a
  // verdict, and a dropping handler would then discard an outage's backlog;
  // the writer fails with it instead.
  bool PrepareRoute(FailedElement& failed);
  void ObserveFlush(absl::Time started) {
    metrics_.flush_duration->Observe(
        absl::ToDoubleSeconds(clock_->Now() - started));
  }

 private:
  WriterCoreOptions options_;
  const Clock* clock_ = &RealClock::Instance();
  int subtask_index_ = 0;
  MetricsRegistry* context_registry_ = nullptr;
  std::unique_ptr<MetricsRegistry> private_registry_;
  MetricsRegistry* registry_ = nullptr;
  MetricLabels labels_;
  SinkMetrics metrics_;
  std::optional<RejectionConfirmation> rejection_;
  absl::flat_hash_map<absl::StatusCode, std::shared_ptr<Counter>> errors_;
  absl::Status failure_;
};

// WriterCoreBase plus the failure handler's life cycle, for failed elements
// of type F.
template <typename F>
class WriterCore final : public WriterCoreBase {
 public:
  using Handler = FailureHandler<F>;

  WriterCore() = default;
  ~WriterCore() { Close(); }

  // Registers the metrics and opens `handler` (FailJob when null).
  absl::Status Open(WriterCoreOptions options,
                    const runtime::SinkWriterContext& context,
                    std::unique_ptr<Handler> handler) {
    handler_ = handler != nullptr ? std::move(handler) : FailJob<F>();
    if (absl::Status status = InitBase(std::move(options), context);
        !status.ok()) {
      return status;
    }
    return handler_->Open(HandlerContext());
  }

  // Hands `failed` to the failure handler; the caller has set its
  // destination, status, attempts, payload and attributes. Returns the
  // writer's failure (OK when the handler took it).
  const absl::Status& Route(F& failed) {
    if (!PrepareRoute(failed)) return failure();
    metrics().records_routed->Increment();
    if (absl::Status handled = handler_->Handle(failed); !handled.ok()) {
      return Fail(handled);
    }
    return failure();
  }
  const absl::Status& Route(F&& failed) { return Route(failed); }

  // A record the serializer refused: routed with the serializer's status,
  // the record's position, and the payload the serializer attached.
  const absl::Status& RouteSerializationFailure(std::string destination,
                                                const absl::Status& status,
                                                const WriterContext& context) {
    if (failed()) return failure();
    F failed_element;
    failed_element.destination = std::move(destination);
    failed_element.status = absl::Status(
        status.code(),
        absl::StrCat("serializer failed on record #", context.record_position,
                     ": ", status.message()));
    failed_element.payload = RecordPayloadOf(status);
    return Route(failed_element);
  }

  // The end of every flush, once the send path drained: flushes the
  // handler (so every routed record is durable) and observes the flush's
  // duration since `started`.
  const absl::Status& FinishFlush(absl::Time started) {
    if (failed()) return failure();
    if (absl::Status flushed = handler_->Flush(); !flushed.ok()) {
      return Fail(flushed);
    }
    ObserveFlush(started);
    return failure();
  }

  // Closes the handler once.
  void Close() {
    if (handler_ == nullptr) return;
    handler_->Close();
    handler_.reset();
  }

 private:
  std::unique_ptr<Handler> handler_;
};

}  // namespace gcpstream::connector

#endif  // GCPSTREAM_CONNECTOR_WRITER_CORE_H_
