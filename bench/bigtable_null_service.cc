#include "bench/bigtable_null_service.h"

#include <atomic>
#include <memory>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "google/bigtable/v2/bigtable.grpc.pb.h"

namespace gcpstream::bench {
namespace {

namespace v2 = ::google::bigtable::v2;

class NullBigtableService final : public v2::Bigtable::CallbackService {
 public:
  explicit NullBigtableService(int fail_every) : fail_every_(fail_every) {}

  grpc::ServerWriteReactor<v2::MutateRowsResponse>* MutateRows(
      grpc::CallbackServerContext*,
      const v2::MutateRowsRequest* request) override {
    class Reactor final
        : public grpc::ServerWriteReactor<v2::MutateRowsResponse> {
     public:
      Reactor(const v2::MutateRowsRequest& request, int fail_every,
              std::atomic<int64_t>& seen) {
        for (int i = 0; i < request.entries_size(); ++i) {
          auto& entry = *response_.add_entries();
          entry.set_index(i);
          if (fail_every > 0 && seen.fetch_add(1) % fail_every == 0) {
            entry.mutable_status()->set_code(grpc::StatusCode::UNAVAILABLE);
          }
        }
        StartWriteAndFinish(&response_, grpc::WriteOptions(), grpc::Status::OK);
      }
      void OnDone() override { delete this; }  // NOLINT: gRPC's reactor idiom

     private:
      v2::MutateRowsResponse response_;
    };
    // NOLINTNEXTLINE(cppcoreguidelines-owning-memory): deleted in OnDone.
    return new Reactor(*request, fail_every_, seen_);
  }

 private:
  const int fail_every_;
  std::atomic<int64_t> seen_{0};
};

}  // namespace

ForkedServer StartNullBigtable(int fail_every) {
  return StartForkedServer([fail_every] {
    std::vector<std::unique_ptr<grpc::Service>> services;
    services.push_back(std::make_unique<NullBigtableService>(fail_every));
    return services;
  });
}

}  // namespace gcpstream::bench
