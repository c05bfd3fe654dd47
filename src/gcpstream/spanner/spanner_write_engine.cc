#include "gcpstream/spanner/spanner_write_engine.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/base/backoff_policy.h"
#include "gcpstream/spanner/spanner_classification.h"
#include "google/protobuf/util/time_util.h"
#include "spdlog/spdlog.h"

namespace gcpstream::spanner {
namespace {

using ::google::spanner::v1::BatchWriteRequest;
using ::google::spanner::v1::CommitRequest;
using ::google::spanner::v1::RequestOptions;

RequestOptions::Priority ToProto(RpcPriority priority) {
  switch (priority) {
    case RpcPriority::kLow:
      return RequestOptions::PRIORITY_LOW;
    case RpcPriority::kMedium:
      return RequestOptions::PRIORITY_MEDIUM;
    case RpcPriority::kHigh:
      return RequestOptions::PRIORITY_HIGH;
  }
  return RequestOptions::PRIORITY_UNSPECIFIED;
}

std::string KeyPart(const google::protobuf::Value& value) {
  return value.kind_case() == google::protobuf::Value::kStringValue
             ? value.string_value()
             : value.SerializeAsString();
}

std::string KeyString(absl::string_view table,
                      const google::protobuf::ListValue& key) {
  // `table` is the catalog's canonical name, so it compares exactly.
  std::string out(table);
  for (const auto& part : key.values()) {
    absl::StrAppend(&out, "\x1f", KeyPart(part));
  }
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SpannerWriteEngine>> SpannerWriteEngine::Create(
    SpannerSinkOptions options, const runtime::SinkWriterContext& context,
    std::unique_ptr<Handler> handler) {
  if (absl::Status status = CheckSpannerSinkOptions(options); !status.ok()) {
    return status;
  }
  if (handler == nullptr) handler = FailJob<SpannerFailedElement>();
  auto engine = std::make_unique<SpannerWriteEngine>(
      ConstructorKey(), std::move(options), context, std::move(handler));
  if (absl::Status status = engine->Init(context); !status.ok()) return status;
  return engine;
}

SpannerWriteEngine::SpannerWriteEngine(
    ConstructorKey, SpannerSinkOptions options,
    const runtime::SinkWriterContext& context, std::unique_ptr<Handler> handler)
    : options_(std::move(options)),
      clock_(options_.clock != nullptr ? *options_.clock
                                       : RealClock::Instance()),
      executor_(context.mailbox),
      subtask_index_(context.subtask_index),
      table_(SpannerClassification(options_.constraint_violation_policy)),
      handler_(std::move(handler)),
      method_(options_.write_method),
      registry_(context.metrics) {
  labels_.pipeline = context.pipeline;
  labels_.operator_name = context.sink_name;
  labels_.subtask = context.subtask_index;
}

SpannerWriteEngine::~SpannerWriteEngine() { Close(); }

absl::Status SpannerWriteEngine::Init(
    const runtime::SinkWriterContext& context) {
  absl::StatusOr<RejectionConfirmation> rejection =
      RejectionConfirmation::Create(table_, options_.max_consecutive_rejections,
                                    options_.name);
  if (!rejection.ok()) return rejection.status();
  rejection_.emplace(*std::move(rejection));
  if (absl::Status status = RegisterMetrics(context); !status.ok()) {
    return status;
  }
  absl::StatusOr<std::unique_ptr<SpannerConnection>> connection =
      SpannerConnection::Open(options_, executor_);
  if (!connection.ok()) return connection.status();
  connection_ = *std::move(connection);
  absl::StatusOr<SchemaCatalog> catalog = connection_->LoadSchema();
  if (!catalog.ok()) return catalog.status();
  catalog_.emplace(*std::move(catalog));
  return handler_->Open(FailureHandlerContext{.subtask_index = subtask_index_,
                                              .connector = "spanner",
                                              .metrics = registry_,
                                              .labels = labels_});
}

absl::Status SpannerWriteEngine::RegisterMetrics(
    const runtime::SinkWriterContext& context) {
  MetricsRegistry private_registry;
  MetricsRegistry& registry =
      context.metrics != nullptr ? *context.metrics : private_registry;
  absl::StatusOr<SinkMetrics> sink = SinkMetrics::Create(registry, labels_);
  if (!sink.ok()) return sink.status();
  metrics_ = *std::move(sink);
  auto retried = registry.GetCounter(
      "mutations_retried", "Mutations resent after a transient refusal.",
      labels_);
  auto sent = registry.GetCounter(
      "batches_sent", "BatchWrite or Commit requests sent.", labels_);
  auto fallbacks = registry.GetCounter(
      "write_method_fallbacks",
      "Switches from batch-write to commit because BatchWrite is "
      "unimplemented.",
      labels_);
  auto mutations = registry.GetGauge("buffered_mutations",
                                     "Mutations in the open batch.", labels_);
  auto cells =
      registry.GetGauge("buffered_cells", "Cells in the open batch.", labels_);
  auto bytes =
      registry.GetGauge("buffered_bytes", "Bytes in the open batch.", labels_);
  for (const absl::Status& status :
       {retried.status(), sent.status(), fallbacks.status(), mutations.status(),
        cells.status(), bytes.status()}) {
    if (!status.ok()) return status;
  }
  spanner_metrics_ = Metrics{.mutations_retried = *retried,
                             .batches_sent = *sent,
                             .write_method_fallbacks = *fallbacks,
                             .buffered_mutations = *mutations,
                             .buffered_cells = *cells,
                             .buffered_bytes = *bytes};
  return absl::OkStatus();
}

std::optional<std::vector<std::string>> SpannerWriteEngine::KeysOf(
    const Pending& pending) const {
  const auto& proto = pending.encoded.proto;
  if (proto.has_delete_()) {
    if (proto.delete_().key_set().ranges_size() > 0) return std::nullopt;
    std::vector<std::string> keys;
    for (const auto& key : proto.delete_().key_set().keys()) {
      keys.push_back(KeyString(proto.delete_().table(), key));
    }
    return keys;
  }
  const google::spanner::v1::Mutation::Write& write =
      proto.has_insert()             ? proto.insert()
      : proto.has_update()           ? proto.update()
      : proto.has_insert_or_update() ? proto.insert_or_update()
                                     : proto.replace();
  const TableSchema* table = catalog_->FindTable(pending.mutation.table());
  google::protobuf::ListValue key;
  for (int part : table->primary_key) {
    const std::string& name = table->columns[part].name;
    int found = -1;
    for (int i = 0; i < write.columns_size(); ++i) {
      if (write.columns(i) == name) found = i;
    }
    if (found < 0) return std::nullopt;
    *key.add_values() = write.values(0).values(found);
  }
  return std::vector<std::string>{KeyString(write.table(), key)};
}

absl::Status SpannerWriteEngine::Write(Mutation mutation,
                                       const WriterContext& context) {
  if (!failure_.ok()) return failure_;
  absl::StatusOr<EncodedMutation> encoded = catalog_->Encode(mutation);
  if (encoded.status().code() == absl::StatusCode::kNotFound) {
    return Fail(absl::NotFoundError(absl::StrCat(options_.name, ": record #",
                                                 context.record_position, ": ",
                                                 encoded.status().message())));
  }
  if (!encoded.ok()) {
    return Route(Pending{std::move(mutation), EncodedMutation()},
                 absl::InvalidArgumentError(
                     absl::StrCat("record #", context.record_position, ": ",
                                  encoded.status().message())),
                 /*attempts=*/1);
  }
  Pending pending{std::move(mutation), *std::move(encoded)};
  std::optional<std::vector<std::string>> keys = KeysOf(pending);
  bool conflict = batch_sealed_ || (!keys.has_value() && !batch_.empty());
  if (keys.has_value()) {
    for (const std::string& key : *keys) conflict |= batch_keys_.contains(key);
  }
  const bool over_limit =
      batch_cells_ + pending.encoded.cells > options_.max_batch_cells ||
      static_cast<int64_t>(batch_.size()) + 1 > options_.max_batch_mutations ||
      batch_bytes_ + pending.encoded.bytes > options_.max_batch_bytes;
  // Mutations of one key never share a batch: BatchWrite applies groups in
  // no particular order, and the later one must win.
  if (!batch_.empty() && (over_limit || conflict)) {
    if (absl::Status sent = SendBatch(); !sent.ok()) return sent;
  }
  if (keys.has_value()) {
    for (std::string& key : *keys) batch_keys_.insert(std::move(key));
  } else {
    batch_sealed_ = true;
  }
  batch_cells_ += pending.encoded.cells;
  batch_bytes_ += pending.encoded.bytes;
  batch_.push_back(std::move(pending));
  UpdateBufferGauges();
  return absl::OkStatus();
}

absl::Status SpannerWriteEngine::RouteSerializationFailure(
    const absl::Status& status, const WriterContext& context) {
  if (!failure_.ok()) return failure_;
  SpannerFailedElement failed;
  failed.connector = "spanner";
  failed.destination = options_.database.ResourceName();
  failed.status =
      absl::Status(status.code(), absl::StrCat("serializer failed on record #",
                                               context.record_position, ": ",
                                               status.message()));
  failed.payload = RecordPayloadOf(status);
  failed.failure_time = clock_.Now();
  failed.subtask_index = subtask_index_;
  metrics_.records_routed->Increment();
  if (absl::Status handled = handler_->Handle(failed); !handled.ok()) {
    return Fail(handled);
  }
  return absl::OkStatus();
}

absl::Status SpannerWriteEngine::SendBatch() {
  std::vector<Pending> batch = std::move(batch_);
  batch_.clear();
  batch_keys_.clear();
  batch_sealed_ = false;
  batch_cells_ = 0;
  batch_bytes_ = 0;
  UpdateBufferGauges();
  if (batch.empty()) return absl::OkStatus();
  std::vector<Pending*> pointers;
  pointers.reserve(batch.size());
  for (Pending& pending : batch) pointers.push_back(&pending);
  absl::Status sent = method_ == WriteMethod::kBatchWrite
                          ? SendViaBatchWrite(std::move(pointers))
                          : SendViaCommit(std::move(pointers));
  if (!sent.ok()) return Fail(sent);
  return failure_;
}

absl::Status SpannerWriteEngine::SendViaBatchWrite(
    std::vector<Pending*> batch) {
  absl::StatusOr<RetryState> retry =
      RetryState::Create(options_.retry, clock_, DefaultUniformRandom());
  if (!retry.ok()) return retry.status();
  std::vector<Pending*> undecided = std::move(batch);
  while (!undecided.empty()) {
    BatchWriteRequest request;
    if (options_.rpc_priority.has_value()) {
      request.mutable_request_options()->set_priority(
          ToProto(*options_.rpc_priority));
    }
    // Mutations move into the request and back: no copy per send.
    for (Pending* pending : undecided) {
      request.add_mutation_groups()->add_mutations()->Swap(
          &pending->encoded.proto);
    }
    metrics_.requests->Increment();
    spanner_metrics_.batches_sent->Increment();
    SpannerConnection::BatchWriteResult result =
        connection_->BatchWrite(request);
    for (size_t i = 0; i < undecided.size(); ++i) {
      undecided[i]->encoded.proto.Swap(
          request.mutable_mutation_groups(static_cast<int>(i))
              ->mutable_mutations(0));
    }
    if (!result.status.ok()) CountError(result.status);
    if (result.status.code() == absl::StatusCode::kUnimplemented &&
        result.responses.empty()) {
      spdlog::warn(
          "{}: the service answered BatchWrite with UNIMPLEMENTED{}; "
          "writing with Commit from now on. Set option '{}' to '{}' to "
          "avoid this fallback.",
          options_.name,
          result.status.message().empty()
              ? std::string()
              : absl::StrCat(" (", result.status.message(), ")"),
          std::string(kWriteMethodOption.key()),
          std::string(kWriteMethodOption.Name(WriteMethod::kCommit)));
      spanner_metrics_.write_method_fallbacks->Increment();
      method_ = WriteMethod::kCommit;
      return SendViaCommit(std::move(undecided));
    }
    std::vector<bool> reported(undecided.size(), false);
    std::vector<Pending*> next;
    absl::Status transient;
    for (const auto& response : result.responses) {
      const absl::Status status(
          static_cast<absl::StatusCode>(response.status().code()),
          response.status().message());
      if (!status.ok()) CountError(status);
      for (int index : response.indexes()) {
        if (index < 0 || index >= static_cast<int>(undecided.size()) ||
            reported[index]) {
          continue;  // Never seen from the service; ignore what is unsound.
        }
        reported[index] = true;
        Pending& pending = *undecided[index];
        if (status.ok()) {
          metrics_.records_written->Increment();
          metrics_.bytes_written->Increment(pending.encoded.bytes);
          continue;
        }
        switch (table_.ClassifyEntry(status)) {
          case StatusClass::kPerRecord:
            if (absl::Status routed = Route(pending, status, retry->attempts());
                !routed.ok()) {
              return routed;
            }
            break;
          case StatusClass::kTransient:
            transient = status;
            next.push_back(&pending);
            break;
          case StatusClass::kFatal:
            return absl::Status(
                status.code(),
                absl::StrCat(options_.name, ": Spanner refused a ",
                             OperationName(pending.mutation.operation()),
                             " of ", pending.mutation.table(), ": ",
                             status.message(), " (",
                             kConstraintViolationPolicyOption.key(), "=",
                             kConstraintViolationPolicyOption.Name(
                                 options_.constraint_violation_policy),
                             ")"));
        }
      }
    }
    if (!result.status.ok()) {
      if (table_.ClassifyRequest(result.status) != StatusClass::kTransient) {
        // A request-level refusal is never routed.
        return absl::Status(result.status.code(),
                            absl::StrCat(options_.name, ": BatchWrite to ",
                                         options_.database.ResourceName(),
                                         " failed: ", result.status.message()));
      }
      transient = result.status;
    }
    for (size_t i = 0; i < undecided.size(); ++i) {
      if (!reported[i]) next.push_back(undecided[i]);
    }
    if (next.empty()) break;
    if (transient.ok()) {
      transient = absl::UnavailableError(
          "the BatchWrite stream ended without reporting every group");
    }
    RetryDecision decision =
        retry->OnFailure(transient, StatusClass::kTransient);
    if (decision.action != RetryDecision::Action::kRetryAfter) {
      return RetryExhausted(decision, next.size());
    }
    spanner_metrics_.mutations_retried->Increment(next.size());
    metrics_.request_retries->Increment();
    if (absl::Status slept = Sleep(decision.delay); !slept.ok()) return slept;
    undecided = std::move(next);
  }
  return absl::OkStatus();
}

absl::Status SpannerWriteEngine::Commit(const std::vector<Pending*>& batch) {
  CommitRequest request;
  request.mutable_single_use_transaction()->mutable_read_write();
  if (options_.max_commit_delay.has_value()) {
    *request.mutable_max_commit_delay() =
        google::protobuf::util::TimeUtil::NanosecondsToDuration(
            absl::ToInt64Nanoseconds(*options_.max_commit_delay));
  }
  if (options_.rpc_priority.has_value()) {
    request.mutable_request_options()->set_priority(
        ToProto(*options_.rpc_priority));
  }
  for (Pending* pending : batch) {
    request.add_mutations()->Swap(&pending->encoded.proto);
  }
  metrics_.requests->Increment();
  spanner_metrics_.batches_sent->Increment();
  absl::Status status = connection_->Commit(request);
  for (size_t i = 0; i < batch.size(); ++i) {
    batch[i]->encoded.proto.Swap(
        request.mutable_mutations(static_cast<int>(i)));
  }
  if (!status.ok()) CountError(status);
  return status;
}

absl::Status SpannerWriteEngine::SendViaCommit(std::vector<Pending*> batch) {
  if (batch.size() == 1) return CommitAlone(*batch.front());
  absl::StatusOr<RetryState> retry =
      RetryState::Create(options_.retry, clock_, DefaultUniformRandom());
  if (!retry.ok()) return retry.status();
  while (true) {
    absl::Status status = Commit(batch);
    if (status.ok()) {
      rejection_->OnSuccess();
      for (const Pending* pending : batch) {
        metrics_.records_written->Increment();
        metrics_.bytes_written->Increment(pending->encoded.bytes);
      }
      return absl::OkStatus();
    }
    switch (table_.ClassifyRequest(status)) {
      case StatusClass::kPerRecord:
        // One mutation may have spoilt the commit: confirm each alone.
        return ConfirmEach(batch);
      case StatusClass::kFatal:
        return absl::Status(
            status.code(),
            absl::StrCat(options_.name, ": a commit of ", batch.size(),
                         " mutations to ", options_.database.ResourceName(),
                         " failed: ", status.message(), " (",
                         kConstraintViolationPolicyOption.key(), "=",
                         kConstraintViolationPolicyOption.Name(
                             options_.constraint_violation_policy),
                         ")"));
      case StatusClass::kTransient:
        break;
    }
    RetryDecision decision = retry->OnFailure(status, StatusClass::kTransient);
    if (decision.action != RetryDecision::Action::kRetryAfter) {
      return RetryExhausted(decision, batch.size());
    }
    spanner_metrics_.mutations_retried->Increment(batch.size());
    metrics_.request_retries->Increment();
    if (absl::Status slept = Sleep(decision.delay); !slept.ok()) return slept;
  }
}

absl::Status SpannerWriteEngine::ConfirmEach(
    const std::vector<Pending*>& batch) {
  for (Pending* pending : batch) {
    if (absl::Status status = CommitAlone(*pending); !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

absl::Status SpannerWriteEngine::CommitAlone(Pending& pending) {
  absl::StatusOr<RetryState> retry =
      RetryState::Create(options_.retry, clock_, DefaultUniformRandom());
  if (!retry.ok()) return retry.status();
  while (true) {
    absl::Status status = Commit({&pending});
    RejectionConfirmation::Verdict verdict = rejection_->OnSingleResult(status);
    switch (verdict.kind) {
      case ConfirmationVerdict::kWritten:
        metrics_.records_written->Increment();
        metrics_.bytes_written->Increment(pending.encoded.bytes);
        return absl::OkStatus();
      case ConfirmationVerdict::kRouted:
        // An existing key is what a replayed insert finds: evidence that the
        // mapping works, not of a systematic error.
        if (status.code() == absl::StatusCode::kAlreadyExists) {
          rejection_->OnSuccess();
        }
        return Route(pending, status, retry->attempts());
      case ConfirmationVerdict::kFatal:
        return absl::Status(
            verdict.status.code(),
            absl::StrCat(options_.name, ": Spanner refused a ",
                         OperationName(pending.mutation.operation()), " of ",
                         pending.mutation.table(), ": ",
                         verdict.status.message(), " (",
                         kConstraintViolationPolicyOption.key(), "=",
                         kConstraintViolationPolicyOption.Name(
                             options_.constraint_violation_policy),
                         ")"));
      case ConfirmationVerdict::kRetry:
        break;
    }
    RetryDecision decision = retry->OnFailure(status, StatusClass::kTransient);
    if (decision.action != RetryDecision::Action::kRetryAfter) {
      return RetryExhausted(decision, 1);
    }
    spanner_metrics_.mutations_retried->Increment();
    metrics_.request_retries->Increment();
    if (absl::Status slept = Sleep(decision.delay); !slept.ok()) return slept;
  }
}

absl::Status SpannerWriteEngine::Sleep(absl::Duration delay) {
  const absl::Time until = absl::Now() + delay;
  executor_.YieldUntil([] { return false; }, until);
  if (absl::Now() < until) {
    return absl::CancelledError(absl::StrCat(
        options_.name, ": stopped waiting to retry: the job was cancelled"));
  }
  return absl::OkStatus();
}

absl::Status SpannerWriteEngine::RetryExhausted(const RetryDecision& decision,
                                                size_t mutations) {
  return absl::Status(
      decision.status.code(),
      absl::StrCat(options_.name, ": ", mutations, " mutations to ",
                   options_.database.ResourceName(),
                   " are still undecided: ", decision.status.message()));
}

absl::Status SpannerWriteEngine::Route(const Pending& pending,
                                       const absl::Status& status,
                                       int attempts) {
  SpannerFailedElement failed;
  failed.connector = "spanner";
  failed.destination = options_.database.ResourceName();
  failed.status = status;
  failed.attempts = attempts;
  failed.failure_time = clock_.Now();
  failed.subtask_index = subtask_index_;
  failed.payload = pending.mutation.ToJson().dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
  failed.attributes = {
      {"table", pending.mutation.table()},
      {"operation", OperationName(pending.mutation.operation())}};
  failed.mutation = pending.mutation;
  metrics_.records_routed->Increment();
  if (absl::Status handled = handler_->Handle(failed); !handled.ok()) {
    return Fail(handled);
  }
  return absl::OkStatus();
}

absl::Status SpannerWriteEngine::Fail(const absl::Status& status) {
  if (failure_.ok()) failure_ = status;
  return failure_;
}

void SpannerWriteEngine::CountError(const absl::Status& status) {
  auto it = errors_.find(status.code());
  if (it == errors_.end()) {
    std::shared_ptr<Counter> counter = std::make_shared<Counter>();
    if (registry_ != nullptr) {
      auto registered = registry_->GetCounter(
          absl::StrCat(
              "spanner_errors_",
              absl::AsciiStrToLower(absl::StatusCodeToString(status.code()))),
          "Spanner requests or mutation groups refused with this code.",
          labels_);
      if (registered.ok()) counter = *std::move(registered);
    }
    it = errors_.emplace(status.code(), std::move(counter)).first;
  }
  it->second->Increment();
}

void SpannerWriteEngine::UpdateBufferGauges() {
  spanner_metrics_.buffered_mutations->Set(static_cast<int64_t>(batch_.size()));
  spanner_metrics_.buffered_cells->Set(batch_cells_);
  spanner_metrics_.buffered_bytes->Set(batch_bytes_);
}

absl::Status SpannerWriteEngine::Flush(bool end_of_input) {
  (void)end_of_input;
  const absl::Time started = absl::Now();
  if (!failure_.ok()) return failure_;
  if (absl::Status sent = SendBatch(); !sent.ok()) return sent;
  if (absl::Status flushed = handler_->Flush(); !flushed.ok()) {
    return Fail(flushed);
  }
  metrics_.flush_duration->Observe(
      absl::ToDoubleSeconds(absl::Now() - started));
  return absl::OkStatus();
}

void SpannerWriteEngine::Close() {
  if (closed_) return;
  closed_ = true;
  if (connection_ != nullptr) connection_->Close();
  handler_->Close();
}

}  // namespace gcpstream::spanner
