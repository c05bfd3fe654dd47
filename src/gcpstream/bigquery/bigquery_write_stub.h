#ifndef GCPSTREAM_BIGQUERY_BIGQUERY_WRITE_STUB_H_
#define GCPSTREAM_BIGQUERY_BIGQUERY_WRITE_STUB_H_

#include <functional>
#include <memory>
#include <string>

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>

#include "gcpstream/connector/rpc_observer.h"
#include "google/cloud/bigquery/storage/v1/storage.grpc.pb.h"

namespace gcpstream::bigquery {

namespace storage_v1 = ::google::cloud::bigquery::storage::v1;

// One open AppendRows stream: requests are written in the order given, and
// the service answers them in that order.
class AppendRowsStream {
 public:
  virtual ~AppendRowsStream() = default;
  // Queues `request` behind those queued before. Any thread. After the
  // stream ended it is dropped (its append is answered by the stream's
  // status).
  virtual void Write(
      std::shared_ptr<const storage_v1::AppendRowsRequest> request) = 0;
  // Ends the stream now: the stream's `done` follows (CANCELLED unless it
  // had already ended).
  virtual void Cancel() = 0;
};

// The Storage Write API calls the sink makes, as in google-cloud-cpp: the
// gRPC implementation at the bottom, decorators (routing header, logging
// and latency) stacked by MakeBigQueryWriteStub(), the write engine on
// top. Tests put a scripted server (or fake) at the bottom.
class BigQueryWriteStub {
 public:
  virtual ~BigQueryWriteStub() = default;
  // Opens a bidirectional AppendRows stream. `on_response` gets each
  // response (gRPC's thread), then `done` the stream's status, once.
  // `write_stream` names the stream of the first request (routing).
  virtual std::shared_ptr<AppendRowsStream> AsyncAppendRows(
      std::unique_ptr<grpc::ClientContext> context,
      const std::string& write_stream,
      connector::RpcOnResponse<storage_v1::AppendRowsResponse> on_response,
      connector::RpcDone done) = 0;
};

// Null means gRPC over the channel (tests return a fake).
using BigQueryWriteStubFactory =
    std::function<std::shared_ptr<BigQueryWriteStub>(
        const std::shared_ptr<grpc::Channel>&)>;

std::shared_ptr<BigQueryWriteStub> MakeGrpcBigQueryWriteStub(
    const std::shared_ptr<grpc::Channel>& channel);

// The stack: the bottom (`make_bottom`, else gRPC), the routing header
// x-goog-request-params (write_stream=...), then the observers.
std::shared_ptr<BigQueryWriteStub> MakeBigQueryWriteStub(
    const std::shared_ptr<grpc::Channel>& channel,
    const BigQueryWriteStubFactory& make_bottom,
    connector::RpcObservers observers);

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_BIGQUERY_WRITE_STUB_H_
