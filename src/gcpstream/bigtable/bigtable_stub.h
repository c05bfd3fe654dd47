#ifndef GCPSTREAM_BIGTABLE_BIGTABLE_STUB_H_
#define GCPSTREAM_BIGTABLE_BIGTABLE_STUB_H_

#include <functional>
#include <memory>
#include <string>

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>

#include "gcpstream/connector/rpc_observer.h"
#include "google/bigtable/admin/v2/bigtable_table_admin.grpc.pb.h"
#include "google/bigtable/v2/bigtable.grpc.pb.h"

namespace gcpstream::bigtable {

// The Bigtable (and table admin) RPCs the sink makes, one method each, as
// in google-cloud-cpp: the gRPC implementation at the bottom, decorators
// (request metadata, logging and latency) stacked on it by
// MakeBigtableStub(), the write engine on top. Logic tests put a scripted
// fake at the bottom.
//
// Each call is asynchronous: the caller keeps `context`, `request` and
// `response` alive until `done` ran; `done` runs exactly once, on any
// thread.
class BigtableStub {
 public:
  virtual ~BigtableStub() = default;
  // Server streaming: `on_response` gets each response in order (on gRPC's
  // thread), then `done` the stream's status.
  virtual void AsyncMutateRows(
      grpc::ClientContext& context,
      const google::bigtable::v2::MutateRowsRequest& request,
      connector::RpcOnResponse<google::bigtable::v2::MutateRowsResponse>
          on_response,
      connector::RpcDone done) = 0;
  virtual void AsyncCreateTable(
      grpc::ClientContext& context,
      const google::bigtable::admin::v2::CreateTableRequest& request,
      google::bigtable::admin::v2::Table& response,
      connector::RpcDone done) = 0;
  virtual void AsyncGetTable(
      grpc::ClientContext& context,
      const google::bigtable::admin::v2::GetTableRequest& request,
      google::bigtable::admin::v2::Table& response,
      connector::RpcDone done) = 0;
  virtual void AsyncModifyColumnFamilies(
      grpc::ClientContext& context,
      const google::bigtable::admin::v2::ModifyColumnFamiliesRequest& request,
      google::bigtable::admin::v2::Table& response,
      connector::RpcDone done) = 0;
};

// What the bottom of the stack is made from: the data channel and the
// admin channel (one endpoint in production, two variables for emulators).
// Null means gRPC over them (tests return a fake).
using BigtableStubFactory = std::function<std::shared_ptr<BigtableStub>(
    const std::shared_ptr<grpc::Channel>& data,
    const std::shared_ptr<grpc::Channel>& admin)>;

// The bottom of the stack: gRPC's callback API.
std::shared_ptr<BigtableStub> MakeGrpcBigtableStub(
    const std::shared_ptr<grpc::Channel>& data,
    const std::shared_ptr<grpc::Channel>& admin);

// Adds x-goog-request-params, as Google's clients send it: the table (and
// app profile) of a MutateRows, the parent or name of an admin call. A
// writer sends to few tables, so the last table's encoded header is kept.
class BigtableMetadata final : public BigtableStub {
 public:
  explicit BigtableMetadata(std::shared_ptr<BigtableStub> next)
      : next_(std::move(next)) {}
  void AsyncMutateRows(
      grpc::ClientContext& context,
      const google::bigtable::v2::MutateRowsRequest& request,
      connector::RpcOnResponse<google::bigtable::v2::MutateRowsResponse>
          on_response,
      connector::RpcDone done) override;
  void AsyncCreateTable(
      grpc::ClientContext& context,
      const google::bigtable::admin::v2::CreateTableRequest& request,
      google::bigtable::admin::v2::Table& response,
      connector::RpcDone done) override;
  void AsyncGetTable(
      grpc::ClientContext& context,
      const google::bigtable::admin::v2::GetTableRequest& request,
      google::bigtable::admin::v2::Table& response,
      connector::RpcDone done) override;
  void AsyncModifyColumnFamilies(
      grpc::ClientContext& context,
      const google::bigtable::admin::v2::ModifyColumnFamiliesRequest& request,
      google::bigtable::admin::v2::Table& response,
      connector::RpcDone done) override;

 private:
  std::shared_ptr<BigtableStub> next_;
  // The routing header of the last MutateRows, and what it was made of.
  // Called from the writer's task thread only.
  std::string last_table_;
  std::string last_app_profile_;
  std::string last_param_;
};

// Tells the observers (logging, latency) about every call.
class BigtableObserved final : public BigtableStub {
 public:
  BigtableObserved(std::shared_ptr<BigtableStub> next,
                   connector::RpcObservers observers)
      : next_(std::move(next)), observers_(std::move(observers)) {}
  void AsyncMutateRows(
      grpc::ClientContext& context,
      const google::bigtable::v2::MutateRowsRequest& request,
      connector::RpcOnResponse<google::bigtable::v2::MutateRowsResponse>
          on_response,
      connector::RpcDone done) override;
  void AsyncCreateTable(
      grpc::ClientContext& context,
      const google::bigtable::admin::v2::CreateTableRequest& request,
      google::bigtable::admin::v2::Table& response,
      connector::RpcDone done) override;
  void AsyncGetTable(
      grpc::ClientContext& context,
      const google::bigtable::admin::v2::GetTableRequest& request,
      google::bigtable::admin::v2::Table& response,
      connector::RpcDone done) override;
  void AsyncModifyColumnFamilies(
      grpc::ClientContext& context,
      const google::bigtable::admin::v2::ModifyColumnFamiliesRequest& request,
      google::bigtable::admin::v2::Table& response,
      connector::RpcDone done) override;

 private:
  std::shared_ptr<BigtableStub> next_;
  connector::RpcObservers observers_;
};

// The stack: observed(metadata(bottom)), where bottom is `make_bottom`'s
// stub or, when it is null, gRPC over the channels.
std::shared_ptr<BigtableStub> MakeBigtableStub(
    const std::shared_ptr<grpc::Channel>& data,
    const std::shared_ptr<grpc::Channel>& admin,
    const BigtableStubFactory& make_bottom, connector::RpcObservers observers);

}  // namespace gcpstream::bigtable

#endif  // GCPSTREAM_BIGTABLE_BIGTABLE_STUB_H_
