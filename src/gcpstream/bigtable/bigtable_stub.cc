#include "gcpstream/bigtable/bigtable_stub.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "gcpstream/connector/request_metadata.h"
#include "gcpstream/connector/stream_reader.h"

namespace gcpstream::bigtable {
namespace {

namespace admin = ::google::bigtable::admin::v2;
namespace v2 = ::google::bigtable::v2;
using ::gcpstream::connector::RpcDone;
using ::gcpstream::connector::RpcOnResponse;

class GrpcBigtableStub final : public BigtableStub {
 public:
  GrpcBigtableStub(const std::shared_ptr<grpc::Channel>& data,
                   const std::shared_ptr<grpc::Channel>& admin)
      : data_(v2::Bigtable::NewStub(data)),
        admin_(admin::BigtableTableAdmin::NewStub(admin)) {}

  void AsyncMutateRows(grpc::ClientContext& context,
                       const v2::MutateRowsRequest& request,
                       RpcOnResponse<v2::MutateRowsResponse> on_response,
                       RpcDone done) override {
    connector::StreamReader<v2::MutateRowsResponse>::Start(
        [&](grpc::ClientReadReactor<v2::MutateRowsResponse>* reactor) {
          data_->async()->MutateRows(&context, &request, reactor);
        },
        std::move(on_response), std::move(done));
  }
  void AsyncCreateTable(grpc::ClientContext& context,
                        const admin::CreateTableRequest& request,
                        admin::Table& response, RpcDone done) override {
    admin_->async()->CreateTable(&context, &request, &response,
                                 std::move(done));
  }
  void AsyncGetTable(grpc::ClientContext& context,
                     const admin::GetTableRequest& request,
                     admin::Table& response, RpcDone done) override {
    admin_->async()->GetTable(&context, &request, &response, std::move(done));
  }
  void AsyncModifyColumnFamilies(
      grpc::ClientContext& context,
      const admin::ModifyColumnFamiliesRequest& request, admin::Table& response,
      RpcDone done) override {
    admin_->async()->ModifyColumnFamilies(&context, &request, &response,
                                          std::move(done));
  }

 private:
  std::unique_ptr<v2::Bigtable::Stub> data_;
  std::unique_ptr<admin::BigtableTableAdmin::Stub> admin_;
};

}  // namespace

std::shared_ptr<BigtableStub> MakeGrpcBigtableStub(
    const std::shared_ptr<grpc::Channel>& data,
    const std::shared_ptr<grpc::Channel>& admin) {
  return std::make_shared<GrpcBigtableStub>(data, admin);
}

void BigtableMetadata::AsyncMutateRows(
    grpc::ClientContext& context, const v2::MutateRowsRequest& request,
    RpcOnResponse<v2::MutateRowsResponse> on_response, RpcDone done) {
  if (request.table_name() != last_table_ ||
      request.app_profile_id() != last_app_profile_ || last_param_.empty()) {
    last_table_ = request.table_name();
    last_app_profile_ = request.app_profile_id();
    last_param_ = connector::RoutingParam("table_name", last_table_);
    if (!last_app_profile_.empty()) {
      absl::StrAppend(
          &last_param_, "&",
          connector::RoutingParam("app_profile_id", last_app_profile_));
    }
  }
  connector::AddRoutingParam(context, last_param_);
  next_->AsyncMutateRows(context, request, std::move(on_response),
                         std::move(done));
}

void BigtableMetadata::AsyncCreateTable(
    grpc::ClientContext& context, const admin::CreateTableRequest& request,
    admin::Table& response, RpcDone done) {
  connector::AddRoutingParam(context, "parent", request.parent());
  next_->AsyncCreateTable(context, request, response, std::move(done));
}

void BigtableMetadata::AsyncGetTable(grpc::ClientContext& context,
                                     const admin::GetTableRequest& request,
                                     admin::Table& response, RpcDone done) {
  connector::AddRoutingParam(context, "name", request.name());
  next_->AsyncGetTable(context, request, response, std::move(done));
}

void BigtableMetadata::AsyncModifyColumnFamilies(
    grpc::ClientContext& context,
    const admin::ModifyColumnFamiliesRequest& request, admin::Table& response,
    RpcDone done) {
  connector::AddRoutingParam(context, "name", request.name());
  next_->AsyncModifyColumnFamilies(context, request, response, std::move(done));
}

void BigtableObserved::AsyncMutateRows(
    grpc::ClientContext& context, const v2::MutateRowsRequest& request,
    RpcOnResponse<v2::MutateRowsResponse> on_response, RpcDone done) {
  next_->AsyncMutateRows(
      context, request, std::move(on_response),
      observers_.Observe("MutateRows", request, std::move(done)));
}

void BigtableObserved::AsyncCreateTable(
    grpc::ClientContext& context, const admin::CreateTableRequest& request,
    admin::Table& response, RpcDone done) {
  next_->AsyncCreateTable(
      context, request, response,
      observers_.Observe("CreateTable", request, std::move(done)));
}

void BigtableObserved::AsyncGetTable(grpc::ClientContext& context,
                                     const admin::GetTableRequest& request,
                                     admin::Table& response, RpcDone done) {
  next_->AsyncGetTable(
      context, request, response,
      observers_.Observe("GetTable", request, std::move(done)));
}

void BigtableObserved::AsyncModifyColumnFamilies(
    grpc::ClientContext& context,
    const admin::ModifyColumnFamiliesRequest& request, admin::Table& response,
    RpcDone done) {
  next_->AsyncModifyColumnFamilies(
      context, request, response,
      observers_.Observe("ModifyColumnFamilies", request, std::move(done)));
}

std::shared_ptr<BigtableStub> MakeBigtableStub(
    const std::shared_ptr<grpc::Channel>& data,
    const std::shared_ptr<grpc::Channel>& admin,
    const BigtableStubFactory& make_bottom, connector::RpcObservers observers) {
  std::shared_ptr<BigtableStub> stub = make_bottom
                                           ? make_bottom(data, admin)
                                           : MakeGrpcBigtableStub(data, admin);
  stub = std::make_shared<BigtableMetadata>(std::move(stub));
  return std::make_shared<BigtableObserved>(std::move(stub),
                                            std::move(observers));
}

}  // namespace gcpstream::bigtable
