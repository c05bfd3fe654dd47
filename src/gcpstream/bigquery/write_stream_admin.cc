#include "gcpstream/bigquery/write_stream_admin.h"

#include <utility>

#include <grpcpp/client_context.h>

#include "absl/time/clock.h"
#include "gcpstream/connector/grpc_status.h"
#include "gcpstream/connector/request_metadata.h"
#include "gcpstream/connector/retry.h"

namespace gcpstream::bigquery {
namespace {

bool IsTransient(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kAborted:
    case absl::StatusCode::kInternal:
      return true;
    default:
      return false;
  }
}

}  // namespace

WriteStreamAdmin::WriteStreamAdmin(
    const std::shared_ptr<grpc::Channel>& channel,
    WriteStreamAdminOptions options)
    : stub_(storage_v1::BigQueryWrite::NewStub(channel)),
      options_(std::move(options)) {
  if (options_.clock == nullptr) options_.clock = &RealClock::Instance();
  if (!options_.sleep) {
    options_.sleep = [](absl::Duration delay) {
      absl::SleepFor(delay);
      return absl::OkStatus();
    };
  }
}

template <typename Response, typename Call>
absl::StatusOr<Response> WriteStreamAdmin::Run(const std::string& routing_field,
                                               const std::string& resource,
                                               Call call) {
  absl::StatusOr<connector::Retry> retry = connector::Retry::Create(
      options_.retry, *options_.clock, connector::Idempotency::kIdempotent);
  if (!retry.ok()) return retry.status();
  while (true) {
    grpc::ClientContext context;
    context.set_deadline(
        absl::ToChronoTime(retry->AttemptDeadline(options_.attempt_timeout)));
    connector::AddRoutingParam(context, routing_field, resource);
    Response response;
    absl::Status status = connector::FromGrpc(call(context, response));
    if (status.ok()) return response;
    if (!IsTransient(status.code())) return status;
    RetryDecision decision = retry->OnFailure(status, StatusClass::kTransient);
    if (decision.action != RetryDecision::Action::kRetryAfter) {
      return decision.status;
    }
    if (absl::Status slept = options_.sleep(decision.delay); !slept.ok()) {
      return slept;
    }
  }
}

absl::StatusOr<std::string> WriteStreamAdmin::CreatePendingStream(
    const std::string& table) {
  storage_v1::CreateWriteStreamRequest request;
  request.set_parent(table);
  request.mutable_write_stream()->set_type(storage_v1::WriteStream::PENDING);
  absl::StatusOr<storage_v1::WriteStream> stream = Run<storage_v1::WriteStream>(
      "parent", table,
      [&](grpc::ClientContext& context, storage_v1::WriteStream& out) {
        return stub_->CreateWriteStream(&context, request, &out);
      });
  if (!stream.ok()) return stream.status();
  return stream->name();
}

absl::StatusOr<int64_t> WriteStreamAdmin::Finalize(const std::string& stream) {
  storage_v1::FinalizeWriteStreamRequest request;
  request.set_name(stream);
  absl::StatusOr<storage_v1::FinalizeWriteStreamResponse> response =
      Run<storage_v1::FinalizeWriteStreamResponse>(
          "name", stream,
          [&](grpc::ClientContext& context,
              storage_v1::FinalizeWriteStreamResponse& out) {
            return stub_->FinalizeWriteStream(&context, request, &out);
          });
  if (!response.ok()) return response.status();
  return response->row_count();
}

absl::StatusOr<storage_v1::WriteStream> WriteStreamAdmin::Get(
    const std::string& stream) {
  storage_v1::GetWriteStreamRequest request;
  request.set_name(stream);
  return Run<storage_v1::WriteStream>(
      "name", stream,
      [&](grpc::ClientContext& context, storage_v1::WriteStream& out) {
        return stub_->GetWriteStream(&context, request, &out);
      });
}

absl::StatusOr<storage_v1::BatchCommitWriteStreamsResponse>
WriteStreamAdmin::BatchCommit(const std::string& table,
                              const std::vector<std::string>& streams) {
  storage_v1::BatchCommitWriteStreamsRequest request;
  request.set_parent(table);
  for (const std::string& stream : streams) request.add_write_streams(stream);
  return Run<storage_v1::BatchCommitWriteStreamsResponse>(
      "parent", table,
      [&](grpc::ClientContext& context,
          storage_v1::BatchCommitWriteStreamsResponse& out) {
        return stub_->BatchCommitWriteStreams(&context, request, &out);
      });
}

}  // namespace gcpstream::bigquery
