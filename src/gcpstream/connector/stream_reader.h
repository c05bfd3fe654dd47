#ifndef GCPSTREAM_CONNECTOR_STREAM_READER_H_
#define GCPSTREAM_CONNECTOR_STREAM_READER_H_

#include <memory>
#include <utility>

#include <grpcpp/support/client_callback.h>

#include "gcpstream/connector/rpc_observer.h"

namespace gcpstream::connector {

// Reads one server-streaming call on gRPC's threads (Spanner's BatchWrite,
// Bigtable's MutateRows) and owns itself until the stream is done: each
// response goes to `on_response`, then the status to `done`.
template <typename Response>
class StreamReader final : public grpc::ClientReadReactor<Response> {
 public:
  // `begin(reactor)` binds the call to the reactor, e.g.
  // `stub.async()->MutateRows(&context, &request, reactor)`.
  template <typename Begin>
  static void Start(Begin begin, RpcOnResponse<Response> on_response,
                    RpcDone done) {
    auto reader =
        std::make_shared<StreamReader>(std::move(on_response), std::move(done));
    reader->self_ = reader;
    begin(reader.get());
    reader->StartRead(&reader->current_);
    reader->StartCall();
  }

  StreamReader(RpcOnResponse<Response> on_response, RpcDone done)
      : on_response_(std::move(on_response)), done_(std::move(done)) {}

  void OnReadDone(bool ok) override {
    if (!ok) return;
    on_response_(std::move(current_));
    current_.Clear();
    this->StartRead(&current_);
  }
  void OnDone(const grpc::Status& status) override {
    // gRPC is done with the reactor: it may go once `done` returned.
    std::shared_ptr<StreamReader> self = std::move(self_);
    done_(status);
  }

 private:
  std::shared_ptr<StreamReader> self_;
  Response current_;
  RpcOnResponse<Response> on_response_;
  RpcDone done_;
};

}  // namespace gcpstream::connector

#endif  // GCPSTREAM_CONNECTOR_STREAM_READER_H_
