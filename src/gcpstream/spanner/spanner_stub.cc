#include "gcpstream/spanner/spanner_stub.h"

#include <utility>

#include <grpcpp/support/client_callback.h>

#include "gcpstream/connector/request_metadata.h"
#include "gcpstream/connector/stream_reader.h"

namespace gcpstream::spanner {
namespace {

namespace admin = ::google::spanner::admin::database::v1;
namespace v1 = ::google::spanner::v1;
using ::gcpstream::connector::RpcDone;
using ::gcpstream::connector::RpcOnResponse;

class GrpcSpannerStub final : public SpannerStub {
 public:
  explicit GrpcSpannerStub(const std::shared_ptr<grpc::Channel>& channel)
      : stub_(v1::Spanner::NewStub(channel)),
        admin_(admin::DatabaseAdmin::NewStub(channel)) {}

  void AsyncCreateSession(grpc::ClientContext& context,
                          const v1::CreateSessionRequest& request,
                          v1::Session& response, RpcDone done) override {
    stub_->async()->CreateSession(&context, &request, &response,
                                  std::move(done));
  }
  void AsyncDeleteSession(grpc::ClientContext& context,
                          const v1::DeleteSessionRequest& request,
                          google::protobuf::Empty& response,
                          RpcDone done) override {
    stub_->async()->DeleteSession(&context, &request, &response,
                                  std::move(done));
  }
  void AsyncExecuteSql(grpc::ClientContext& context,
                       const v1::ExecuteSqlRequest& request,
                       v1::ResultSet& response, RpcDone done) override {
    stub_->async()->ExecuteSql(&context, &request, &response, std::move(done));
  }
  void AsyncCommit(grpc::ClientContext& context,
                   const v1::CommitRequest& request,
                   v1::CommitResponse& response, RpcDone done) override {
    stub_->async()->Commit(&context, &request, &response, std::move(done));
  }
  void AsyncBatchWrite(grpc::ClientContext& context,
                       const v1::BatchWriteRequest& request,
                       RpcOnResponse<v1::BatchWriteResponse> on_response,
                       RpcDone done) override {
    connector::StreamReader<v1::BatchWriteResponse>::Start(
        [&](grpc::ClientReadReactor<v1::BatchWriteResponse>* reactor) {
          stub_->async()->BatchWrite(&context, &request, reactor);
        },
        std::move(on_response), std::move(done));
  }
  void AsyncGetDatabase(grpc::ClientContext& context,
                        const admin::GetDatabaseRequest& request,
                        admin::Database& response, RpcDone done) override {
    admin_->async()->GetDatabase(&context, &request, &response,
                                 std::move(done));
  }

 private:
  std::unique_ptr<v1::Spanner::Stub> stub_;
  std::unique_ptr<admin::DatabaseAdmin::Stub> admin_;
};

// The metadata of one call: its request's resource field and whether it
// writes.
void Route(grpc::ClientContext& context, absl::string_view field,
           absl::string_view value, bool writes) {
  connector::AddRoutingParam(context, field, value);
  connector::AddResourcePrefix(context, DatabaseOf(value));
  if (writes) connector::AddRouteToLeader(context);
}

}  // namespace

absl::string_view DatabaseOf(absl::string_view resource) {
  const size_t sessions = resource.find("/sessions/");
  return sessions == absl::string_view::npos ? resource
                                             : resource.substr(0, sessions);
}

std::shared_ptr<SpannerStub> MakeGrpcSpannerStub(
    const std::shared_ptr<grpc::Channel>& channel) {
  return std::make_shared<GrpcSpannerStub>(channel);
}

void SpannerMetadata::AsyncCreateSession(
    grpc::ClientContext& context, const v1::CreateSessionRequest& request,
    v1::Session& response, RpcDone done) {
  Route(context, "database", request.database(), /*writes=*/false);
  next_->AsyncCreateSession(context, request, response, std::move(done));
}

void SpannerMetadata::AsyncDeleteSession(
    grpc::ClientContext& context, const v1::DeleteSessionRequest& request,
    google::protobuf::Empty& response, RpcDone done) {
  Route(context, "name", request.name(), /*writes=*/false);
  next_->AsyncDeleteSession(context, request, response, std::move(done));
}

void SpannerMetadata::AsyncExecuteSql(grpc::ClientContext& context,
                                      const v1::ExecuteSqlRequest& request,
                                      v1::ResultSet& response, RpcDone done) {
  Route(context, "session", request.session(), /*writes=*/false);
  next_->AsyncExecuteSql(context, request, response, std::move(done));
}

void SpannerMetadata::AsyncCommit(grpc::ClientContext& context,
                                  const v1::CommitRequest& request,
                                  v1::CommitResponse& response, RpcDone done) {
  Route(context, "session", request.session(), /*writes=*/true);
  next_->AsyncCommit(context, request, response, std::move(done));
}

void SpannerMetadata::AsyncBatchWrite(
    grpc::ClientContext& context, const v1::BatchWriteRequest& request,
    RpcOnResponse<v1::BatchWriteResponse> on_response, RpcDone done) {
  Route(context, "session", request.session(), /*writes=*/true);
  next_->AsyncBatchWrite(context, request, std::move(on_response),
                         std::move(done));
}

void SpannerMetadata::AsyncGetDatabase(grpc::ClientContext& context,
                                       const admin::GetDatabaseRequest& request,
                                       admin::Database& response,
                                       RpcDone done) {
  Route(context, "name", request.name(), /*writes=*/false);
  next_->AsyncGetDatabase(context, request, response, std::move(done));
}

void SpannerObserved::AsyncCreateSession(
    grpc::ClientContext& context, const v1::CreateSessionRequest& request,
    v1::Session& response, RpcDone done) {
  next_->AsyncCreateSession(
      context, request, response,
      observers_.Observe("CreateSession", request, std::move(done)));
}

void SpannerObserved::AsyncDeleteSession(
    grpc::ClientContext& context, const v1::DeleteSessionRequest& request,
    google::protobuf::Empty& response, RpcDone done) {
  next_->AsyncDeleteSession(
      context, request, response,
      observers_.Observe("DeleteSession", request, std::move(done)));
}

void SpannerObserved::AsyncExecuteSql(grpc::ClientContext& context,
                                      const v1::ExecuteSqlRequest& request,
                                      v1::ResultSet& response, RpcDone done) {
  next_->AsyncExecuteSql(
      context, request, response,
      observers_.Observe("ExecuteSql", request, std::move(done)));
}

void SpannerObserved::AsyncCommit(grpc::ClientContext& context,
                                  const v1::CommitRequest& request,
                                  v1::CommitResponse& response, RpcDone done) {
  next_->AsyncCommit(context, request, response,
                     observers_.Observe("Commit", request, std::move(done)));
}

void SpannerObserved::AsyncBatchWrite(
    grpc::ClientContext& context, const v1::BatchWriteRequest& request,
    RpcOnResponse<v1::BatchWriteResponse> on_response, RpcDone done) {
  next_->AsyncBatchWrite(
      context, request, std::move(on_response),
      observers_.Observe("BatchWrite", request, std::move(done)));
}

void SpannerObserved::AsyncGetDatabase(grpc::ClientContext& context,
                                       const admin::GetDatabaseRequest& request,
                                       admin::Database& response,
                                       RpcDone done) {
  next_->AsyncGetDatabase(
      context, request, response,
      observers_.Observe("GetDatabase", request, std::move(done)));
}

std::shared_ptr<SpannerStub> MakeSpannerStub(
    const std::shared_ptr<grpc::Channel>& channel,
    const SpannerStubFactory& make_bottom, connector::RpcObservers observers) {
  std::shared_ptr<SpannerStub> stub =
      make_bottom ? make_bottom(channel) : MakeGrpcSpannerStub(channel);
  stub = std::make_shared<SpannerMetadata>(std::move(stub));
  return std::make_shared<SpannerObserved>(std::move(stub),
                                           std::move(observers));
}

}  // namespace gcpstream::spanner
