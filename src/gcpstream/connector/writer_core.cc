#include "gcpstream/connector/writer_core.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/base/retry_policy.h"

namespace gcpstream::connector {

absl::Status WriterCoreBase::InitBase(
    WriterCoreOptions options, const runtime::SinkWriterContext& context) {
  options_ = std::move(options);
  if (options_.clock != nullptr) clock_ = options_.clock;
  subtask_index_ = context.subtask_index;
  labels_.pipeline = context.pipeline;
  labels_.operator_name = context.sink_name;
  labels_.subtask = context.subtask_index;
  context_registry_ = context.metrics;
  if (context_registry_ == nullptr) {
    private_registry_ = std::make_unique<MetricsRegistry>();
  }
  registry_ = context_registry_ != nullptr ? context_registry_
                                           : private_registry_.get();
  absl::StatusOr<SinkMetrics> sink = SinkMetrics::Create(*registry_, labels_);
  if (!sink.ok()) return sink.status();
  metrics_ = *std::move(sink);
  if (options_.classification == nullptr) {
    return absl::InternalError(absl::StrCat(
        options_.sink_name, ": the connector gave no classification table"));
  }
  absl::StatusOr<RejectionConfirmation> rejection =
      RejectionConfirmation::Create(*options_.classification,
                                    options_.max_consecutive_rejections,
                                    options_.sink_name);
  if (!rejection.ok()) return rejection.status();
  rejection_.emplace(*std::move(rejection));
  return absl::OkStatus();
}

FailureHandlerContext WriterCoreBase::HandlerContext() const {
  // The handler gets the context's registry as it is (null included): a
  // handler's own metrics are private when the writer's are.
  return FailureHandlerContext{.subtask_index = subtask_index_,
                               .connector = options_.connector,
                               .metrics = context_registry_,
                               .labels = labels_};
}

const absl::Status& WriterCoreBase::Fail(const absl::Status& status) {
  if (failure_.ok() && !status.ok()) failure_ = status;
  return failure_;
}

void WriterCoreBase::CountError(const absl::Status& status) {
  auto it = errors_.find(status.code());
  if (it == errors_.end()) {
    std::shared_ptr<Counter> counter = std::make_shared<Counter>();
    auto registered = registry_->GetCounter(
        absl::StrCat(
            options_.error_metric_prefix,
            absl::AsciiStrToLower(absl::StatusCodeToString(status.code()))),
        options_.error_metric_help, labels_);
    if (registered.ok()) counter = *std::move(registered);
    it = errors_.emplace(status.code(), std::move(counter)).first;
  }
  it->second->Increment();
}

bool WriterCoreBase::PrepareRoute(FailedElement& failed) {
  if (IsRetryExhausted(failed.status)) {
    Fail(failed.status);
    return false;
  }
  failed.connector = options_.connector;
  failed.failure_time = clock_->Now();
  failed.subtask_index = subtask_index_;
  return failure_.ok();
}

}  // namespace gcpstream::connector
