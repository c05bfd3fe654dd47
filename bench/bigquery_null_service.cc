#include "bench/bigquery_null_service.h"

#include <memory>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "google/cloud/bigquery/storage/v1/storage.grpc.pb.h"

namespace gcpstream::bench {
namespace {

namespace storage_v1 = ::google::cloud::bigquery::storage::v1;

class NullBigQueryWriteService final
    : public storage_v1::BigQueryWrite::CallbackService {
 public:
  grpc::ServerBidiReactor<storage_v1::AppendRowsRequest,
                          storage_v1::AppendRowsResponse>*
  AppendRows(grpc::CallbackServerContext* /*context*/) override {
    // Reads a request, answers it, reads the next: answers stay in order,
    // one write outstanding at a time as gRPC requires.
    class Reactor final
        : public grpc::ServerBidiReactor<storage_v1::AppendRowsRequest,
                                         storage_v1::AppendRowsResponse> {
     public:
      Reactor() {
        response_.mutable_append_result();
        StartRead(&request_);
      }
      void OnReadDone(bool ok) override {
        if (!ok) {
          Finish(grpc::Status::OK);
          return;
        }
        StartWrite(&response_);
      }
      void OnWriteDone(bool ok) override {
        if (!ok) {
          Finish(grpc::Status::OK);
          return;
        }
        StartRead(&request_);
      }
      void OnDone() override { delete this; }  // NOLINT: gRPC's reactor idiom

     private:
      storage_v1::AppendRowsRequest request_;
      storage_v1::AppendRowsResponse response_;
    };
    // NOLINTNEXTLINE(cppcoreguidelines-owning-memory): deleted in OnDone.
    return new Reactor();
  }
};

}  // namespace

ForkedServer StartNullBigQueryWrite() {
  return StartForkedServer([] {
    std::vector<std::unique_ptr<grpc::Service>> services;
    services.push_back(std::make_unique<NullBigQueryWriteService>());
    return services;
  });
}

}  // namespace gcpstream::bench
