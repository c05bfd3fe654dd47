#include "gcpstream/spanner/mutation_requests.h"

#include <cstdlib>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/auth/service_endpoint.h"
#include "google/protobuf/util/time_util.h"
#include "spdlog/spdlog.h"

namespace gcpstream::spanner {
namespace {

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

void SetPriority(const SpannerSinkOptions& options, RequestOptions& request) {
  if (options.rpc_priority.has_value()) {
    request.set_priority(ToProto(*options.rpc_priority));
  }
}

}  // namespace

BatchWriteRequestFor::BatchWriteRequestFor(
    const SpannerSinkOptions& options,
    const std::vector<PendingMutation*>& batch)
    : batch_(batch) {
  SetPriority(options, *request_.mutable_request_options());
  absl::flat_hash_map<absl::string_view, size_t> group_of;
  for (size_t i = 0; i < batch_.size(); ++i) {
    PendingMutation& pending = *batch_[i];
    size_t group = groups_.size();
    if (!pending.group.empty()) {
      group = group_of.try_emplace(pending.group, groups_.size()).first->second;
    }
    if (group == groups_.size()) {
      groups_.emplace_back();
      request_.add_mutation_groups();
    }
    groups_[group].push_back(i);
    // The request borrows the batch arena's proto (no copy) and gives it
    // back before it is destroyed.
    request_.mutable_mutation_groups(static_cast<int>(group))
        ->mutable_mutations()
        ->UnsafeArenaAddAllocated(pending.encoded.proto);
  }
}

BatchWriteRequestFor::~BatchWriteRequestFor() {
  for (auto& group : *request_.mutable_mutation_groups()) {
    while (!group.mutations().empty()) {
      group.mutable_mutations()->UnsafeArenaReleaseLast();
    }
  }
}

CommitRequestFor::CommitRequestFor(const SpannerSinkOptions& options,
                                   const std::vector<PendingMutation*>& batch)
    : batch_(batch) {
  request_.mutable_single_use_transaction()->mutable_read_write();
  if (options.max_commit_delay.has_value()) {
    *request_.mutable_max_commit_delay() =
        google::protobuf::util::TimeUtil::NanosecondsToDuration(
            absl::ToInt64Nanoseconds(*options.max_commit_delay));
  }
  SetPriority(options, *request_.mutable_request_options());
  for (PendingMutation* pending : batch_) {
    request_.mutable_mutations()->UnsafeArenaAddAllocated(
        pending->encoded.proto);
  }
}

CommitRequestFor::~CommitRequestFor() {
  while (!request_.mutations().empty()) {
    request_.mutable_mutations()->UnsafeArenaReleaseLast();
  }
}

void WarnBatchWriteFallback(const SpannerSinkOptions& options,
                            const absl::Status& status) {
  // The emulator never implements BatchWrite (docs/spanner.md): there the
  // fallback is expected, and said only at debug level.
  const char* emulator = std::getenv(
      std::string(auth::EndpointOf(auth::Service::kSpanner).emulator_env)
          .c_str());
  const bool on_emulator = emulator != nullptr && *emulator != '\0';
  spdlog::log(
      on_emulator ? spdlog::level::debug : spdlog::level::warn,
      "{}: the service answered BatchWrite with UNIMPLEMENTED{}; writing "
      "with Commit from now on. Set option '{}' to '{}' to avoid this "
      "fallback.",
      options.name,
      status.message().empty() ? std::string()
                               : absl::StrCat(" (", status.message(), ")"),
      std::string(kWriteMethodOption.key()),
      std::string(kWriteMethodOption.Name(WriteMethod::kCommit)));
}

}  // namespace gcpstream::spanner
