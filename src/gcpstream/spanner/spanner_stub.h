#ifndef GCPSTREAM_SPANNER_SPANNER_STUB_H_
#define GCPSTREAM_SPANNER_SPANNER_STUB_H_

#include <functional>
#include <memory>

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>

#include "absl/strings/string_view.h"
#include "gcpstream/connector/rpc_observer.h"
#include "google/spanner/admin/database/v1/spanner_database_admin.grpc.pb.h"
#include "google/spanner/v1/spanner.grpc.pb.h"

namespace gcpstream::spanner {

// The Spanner (and database admin) RPCs the sink makes, one method each, as
// in google-cloud-cpp: the gRPC implementation at the bottom, decorators
// (request metadata, logging and latency) stacked on it by
// MakeSpannerStub(), the connection on top. Logic tests put a mock at the
// bottom.
//
// Each call is asynchronous: the caller keeps `context`, `request` and
// `response` alive until `done` ran; `done` runs exactly once, on any
// thread.
class SpannerStub {
 public:
  virtual ~SpannerStub() = default;
  virtual void AsyncCreateSession(
      grpc::ClientContext& context,
      const google::spanner::v1::CreateSessionRequest& request,
      google::spanner::v1::Session& response, connector::RpcDone done) = 0;
  virtual void AsyncDeleteSession(
      grpc::ClientContext& context,
      const google::spanner::v1::DeleteSessionRequest& request,
      google::protobuf::Empty& response, connector::RpcDone done) = 0;
  virtual void AsyncExecuteSql(
      grpc::ClientContext& context,
      const google::spanner::v1::ExecuteSqlRequest& request,
      google::spanner::v1::ResultSet& response, connector::RpcDone done) = 0;
  virtual void AsyncCommit(grpc::ClientContext& context,
                           const google::spanner::v1::CommitRequest& request,
                           google::spanner::v1::CommitResponse& response,
                           connector::RpcDone done) = 0;
  // Server streaming: `on_response` gets each response in order (on gRPC's
  // thread), then `done` the stream's status.
  virtual void AsyncBatchWrite(
      grpc::ClientContext& context,
      const google::spanner::v1::BatchWriteRequest& request,
      connector::RpcOnResponse<google::spanner::v1::BatchWriteResponse>
          on_response,
      connector::RpcDone done) = 0;
  virtual void AsyncGetDatabase(
      grpc::ClientContext& context,
      const google::spanner::admin::database::v1::GetDatabaseRequest& request,
      google::spanner::admin::database::v1::Database& response,
      connector::RpcDone done) = 0;
};

// What the bottom of the stack is made from; null means gRPC over the
// channel (tests return a mock).
using SpannerStubFactory = std::function<std::shared_ptr<SpannerStub>(
    const std::shared_ptr<grpc::Channel>&)>;

// The bottom of the stack: gRPC's callback API over `channel`.
std::shared_ptr<SpannerStub> MakeGrpcSpannerStub(
    const std::shared_ptr<grpc::Channel>& channel);

// Adds the metadata Google's clients send: x-goog-request-params with the
// request's resource field, google-cloud-resource-prefix with its
// database, and x-goog-spanner-route-to-leader on the calls that write
// (Commit, BatchWrite), so they reach the leader region without a hop.
class SpannerMetadata final : public SpannerStub {
 public:
  explicit SpannerMetadata(std::shared_ptr<SpannerStub> next)
      : next_(std::move(next)) {}
  void AsyncCreateSession(
      grpc::ClientContext& context,
      const google::spanner::v1::CreateSessionRequest& request,
      google::spanner::v1::Session& response, connector::RpcDone done) override;
  void AsyncDeleteSession(
      grpc::ClientContext& context,
      const google::spanner::v1::DeleteSessionRequest& request,
      google::protobuf::Empty& response, connector::RpcDone done) override;
  void AsyncExecuteSql(grpc::ClientContext& context,
                       const google::spanner::v1::ExecuteSqlRequest& request,
                       google::spanner::v1::ResultSet& response,
                       connector::RpcDone done) override;
  void AsyncCommit(grpc::ClientContext& context,
                   const google::spanner::v1::CommitRequest& request,
                   google::spanner::v1::CommitResponse& response,
                   connector::RpcDone done) override;
  void AsyncBatchWrite(
      grpc::ClientContext& context,
      const google::spanner::v1::BatchWriteRequest& request,
      connector::RpcOnResponse<google::spanner::v1::BatchWriteResponse>
          on_response,
      connector::RpcDone done) override;
  void AsyncGetDatabase(
      grpc::ClientContext& context,
      const google::spanner::admin::database::v1::GetDatabaseRequest& request,
      google::spanner::admin::database::v1::Database& response,
      connector::RpcDone done) override;

 private:
  std::shared_ptr<SpannerStub> next_;
};

// Tells the observers (logging, latency) about every call.
class SpannerObserved final : public SpannerStub {
 public:
  SpannerObserved(std::shared_ptr<SpannerStub> next,
                  connector::RpcObservers observers)
      : next_(std::move(next)), observers_(std::move(observers)) {}
  void AsyncCreateSession(
      grpc::ClientContext& context,
      const google::spanner::v1::CreateSessionRequest& request,
      google::spanner::v1::Session& response, connector::RpcDone done) override;
  void AsyncDeleteSession(
      grpc::ClientContext& context,
      const google::spanner::v1::DeleteSessionRequest& request,
      google::protobuf::Empty& response, connector::RpcDone done) override;
  void AsyncExecuteSql(grpc::ClientContext& context,
                       const google::spanner::v1::ExecuteSqlRequest& request,
                       google::spanner::v1::ResultSet& response,
                       connector::RpcDone done) override;
  void AsyncCommit(grpc::ClientContext& context,
                   const google::spanner::v1::CommitRequest& request,
                   google::spanner::v1::CommitResponse& response,
                   connector::RpcDone done) override;
  void AsyncBatchWrite(
      grpc::ClientContext& context,
      const google::spanner::v1::BatchWriteRequest& request,
      connector::RpcOnResponse<google::spanner::v1::BatchWriteResponse>
          on_response,
      connector::RpcDone done) override;
  void AsyncGetDatabase(
      grpc::ClientContext& context,
      const google::spanner::admin::database::v1::GetDatabaseRequest& request,
      google::spanner::admin::database::v1::Database& response,
      connector::RpcDone done) override;

 private:
  std::shared_ptr<SpannerStub> next_;
  connector::RpcObservers observers_;
};

// The stack: observed(metadata(bottom)), where bottom is `make_bottom`'s
// stub or, when it is null, gRPC over `channel`.
std::shared_ptr<SpannerStub> MakeSpannerStub(
    const std::shared_ptr<grpc::Channel>& channel,
    const SpannerStubFactory& make_bottom, connector::RpcObservers observers);

// The database a session or database name belongs to
// ("projects/p/instances/i/databases/d").
absl::string_view DatabaseOf(absl::string_view resource);

}  // namespace gcpstream::spanner

#endif  // GCPSTREAM_SPANNER_SPANNER_STUB_H_
