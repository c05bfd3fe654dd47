#include "gcpstream/bigquery/bigquery_write_stub.h"

#include <deque>
#include <utility>

#include <grpcpp/support/client_callback.h>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "gcpstream/connector/request_metadata.h"

namespace gcpstream::bigquery {
namespace {

using storage_v1::AppendRowsRequest;
using storage_v1::AppendRowsResponse;

// A bidirectional reactor that owns itself until gRPC is done with it.
// Writes are queued (gRPC takes one at a time); the queue is the only state
// shared between the caller's thread and gRPC's, under a mutex taken once
// per request.
class GrpcAppendRowsStream final
    : public grpc::ClientBidiReactor<AppendRowsRequest, AppendRowsResponse>,
      public AppendRowsStream {
 public:
  GrpcAppendRowsStream(std::unique_ptr<grpc::ClientContext> context,
                       connector::RpcOnResponse<AppendRowsResponse> on_response,
                       connector::RpcDone done)
      : context_(std::move(context)),
        on_response_(std::move(on_response)),
        done_(std::move(done)) {}

  static std::shared_ptr<GrpcAppendRowsStream> Start(
      storage_v1::BigQueryWrite::Stub& stub,
      std::unique_ptr<grpc::ClientContext> context,
      connector::RpcOnResponse<AppendRowsResponse> on_response,
      connector::RpcDone done) {
    auto stream = std::make_shared<GrpcAppendRowsStream>(
        std::move(context), std::move(on_response), std::move(done));
    stream->self_ = stream;
    stub.async()->AppendRows(stream->context_.get(), stream.get());
    stream->StartRead(&stream->response_);
    stream->StartCall();
    return stream;
  }

  void Write(std::shared_ptr<const AppendRowsRequest> request) override {
    const AppendRowsRequest* next = nullptr;
    {
      absl::MutexLock lock(&mutex_);
      if (ended_) return;
      queue_.push_back(std::move(request));
      if (writing_ != nullptr) return;
      writing_ = std::move(queue_.front());
      queue_.pop_front();
      next = writing_.get();
    }
    StartWrite(next);
  }

  void Cancel() override { context_->TryCancel(); }

  void OnWriteDone(bool ok) override {
    const AppendRowsRequest* next = nullptr;
    {
      absl::MutexLock lock(&mutex_);
      writing_.reset();
      // A failed write means the stream is broken: OnDone follows.
      if (!ok || queue_.empty()) return;
      writing_ = std::move(queue_.front());
      queue_.pop_front();
      next = writing_.get();
    }
    StartWrite(next);
  }

  void OnReadDone(bool ok) override {
    if (!ok) return;
    on_response_(std::move(response_));
    response_.Clear();
    StartRead(&response_);
  }

  void OnDone(const grpc::Status& status) override {
    {
      absl::MutexLock lock(&mutex_);
      ended_ = true;
      queue_.clear();
    }
    // gRPC is done with the reactor: it may go once `done` returned and
    // the caller let go of it.
    std::shared_ptr<GrpcAppendRowsStream> self = std::move(self_);
    done_(status);
  }

 private:
  std::shared_ptr<GrpcAppendRowsStream> self_;
  std::unique_ptr<grpc::ClientContext> context_;
  connector::RpcOnResponse<AppendRowsResponse> on_response_;
  connector::RpcDone done_;
  AppendRowsResponse response_;
  absl::Mutex mutex_;
  std::deque<std::shared_ptr<const AppendRowsRequest>> queue_
      ABSL_GUARDED_BY(mutex_);
  std::shared_ptr<const AppendRowsRequest> writing_ ABSL_GUARDED_BY(mutex_);
  bool ended_ ABSL_GUARDED_BY(mutex_) = false;
};

class GrpcBigQueryWriteStub final : public BigQueryWriteStub {
 public:
  explicit GrpcBigQueryWriteStub(const std::shared_ptr<grpc::Channel>& channel)
      : stub_(storage_v1::BigQueryWrite::NewStub(channel)) {}

  std::shared_ptr<AppendRowsStream> AsyncAppendRows(
      std::unique_ptr<grpc::ClientContext> context,
      const std::string& /*write_stream*/,
      connector::RpcOnResponse<AppendRowsResponse> on_response,
      connector::RpcDone done) override {
    return GrpcAppendRowsStream::Start(*stub_, std::move(context),
                                       std::move(on_response), std::move(done));
  }

 private:
  std::unique_ptr<storage_v1::BigQueryWrite::Stub> stub_;
};

class BigQueryWriteMetadata final : public BigQueryWriteStub {
 public:
  explicit BigQueryWriteMetadata(std::shared_ptr<BigQueryWriteStub> next)
      : next_(std::move(next)) {}

  std::shared_ptr<AppendRowsStream> AsyncAppendRows(
      std::unique_ptr<grpc::ClientContext> context,
      const std::string& write_stream,
      connector::RpcOnResponse<AppendRowsResponse> on_response,
      connector::RpcDone done) override {
    connector::AddRoutingParam(*context, "write_stream", write_stream);
    return next_->AsyncAppendRows(std::move(context), write_stream,
                                  std::move(on_response), std::move(done));
  }

 private:
  std::shared_ptr<BigQueryWriteStub> next_;
};

class BigQueryWriteObserved final : public BigQueryWriteStub {
 public:
  BigQueryWriteObserved(std::shared_ptr<BigQueryWriteStub> next,
                        connector::RpcObservers observers)
      : next_(std::move(next)), observers_(std::move(observers)) {}

  std::shared_ptr<AppendRowsStream> AsyncAppendRows(
      std::unique_ptr<grpc::ClientContext> context,
      const std::string& write_stream,
      connector::RpcOnResponse<AppendRowsResponse> on_response,
      connector::RpcDone done) override {
    // The stream's life is observed as one call; its first request stands
    // for what it writes to.
    AppendRowsRequest opening;
    opening.set_write_stream(write_stream);
    return next_->AsyncAppendRows(
        std::move(context), write_stream, std::move(on_response),
        observers_.Observe("AppendRows", opening, std::move(done)));
  }

 private:
  std::shared_ptr<BigQueryWriteStub> next_;
  connector::RpcObservers observers_;
};

}  // namespace

std::shared_ptr<BigQueryWriteStub> MakeGrpcBigQueryWriteStub(
    const std::shared_ptr<grpc::Channel>& channel) {
  return std::make_shared<GrpcBigQueryWriteStub>(channel);
}

std::shared_ptr<BigQueryWriteStub> MakeBigQueryWriteStub(
    const std::shared_ptr<grpc::Channel>& channel,
    const BigQueryWriteStubFactory& make_bottom,
    connector::RpcObservers observers) {
  std::shared_ptr<BigQueryWriteStub> stub =
      make_bottom ? make_bottom(channel) : MakeGrpcBigQueryWriteStub(channel);
  stub = std::make_shared<BigQueryWriteMetadata>(std::move(stub));
  return std::make_shared<BigQueryWriteObserved>(std::move(stub),
                                                 std::move(observers));
}

}  // namespace gcpstream::bigquery
