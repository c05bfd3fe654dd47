#include "gcpstream/testing/scripted_server.h"

#include <deque>
#include <set>

#include <google/protobuf/descriptor.h>
#include <grpcpp/alarm.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gcpstream/auth/channel_factory.h"
#include "gtest/gtest.h"

namespace gcpstream::testing {

using ::google::protobuf::Message;
using ::google::protobuf::MethodDescriptor;

Reply Respond(const Message& response) { return RespondStream({&response}); }

Reply RespondStream(const std::vector<const Message*>& responses,
                    std::optional<grpc::Status> finish) {
  Reply reply;
  for (const Message* response : responses) {
    std::shared_ptr<Message> copy(response->New());
    copy->CopyFrom(*response);
    reply.responses.push_back(std::move(copy));
  }
  reply.finish = std::move(finish);
  return reply;
}

Reply Fail(grpc::StatusCode code, const std::string& message) {
  Reply reply;
  reply.finish = grpc::Status(code, message);
  return reply;
}

Reply Delayed(absl::Duration delay, Reply reply) {
  reply.delay = delay;
  return reply;
}

Responder Always(Reply reply) {
  return [reply = std::move(reply)](const Message&) { return reply; };
}

class ScriptedServer::Impl {
 public:
  explicit Impl(std::set<std::string> services)
      : services_(std::move(services)) {}

  // The method a call's path ("/pkg.Service/Method") names, if served.
  const MethodDescriptor* Resolve(const std::string& path) const {
    const size_t slash = path.rfind('/');
    if (path.empty() || path[0] != '/' || slash == 0) return nullptr;
    const std::string service_name = path.substr(1, slash - 1);
    if (!services_.contains(service_name)) return nullptr;
    return google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(
        absl::StrCat(service_name, ".", path.substr(slash + 1)));
  }

  // Assigns the call its index and its responder.
  std::pair<int, Responder> BeginCall(const std::string& method) {
    absl::MutexLock lock(&mu_);
    const int call = call_counts_[method]++;
    auto& queue = scripts_[method];
    if (!queue.empty()) {
      Responder responder = std::move(queue.front());
      queue.pop_front();
      return {call, std::move(responder)};
    }
    if (auto it = defaults_.find(method); it != defaults_.end()) {
      return {call, it->second};
    }
    return {call, Always(Fail(
                      grpc::StatusCode::UNIMPLEMENTED,
                      absl::StrCat("ScriptedServer: no script for ", method)))};
  }

  void Record(const std::string& method, RecordedRequest request) {
    absl::MutexLock lock(&mu_);
    requests_[method].push_back(std::move(request));
  }

  bool Serves(const std::string& method) const {
    const MethodDescriptor* descriptor =
        google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(
            method);
    return descriptor != nullptr &&
           services_.contains(descriptor->service()->full_name());
  }

  void Enqueue(const std::string& method, Responder responder) {
    absl::MutexLock lock(&mu_);
    scripts_[method].push_back(std::move(responder));
  }

  void SetDefault(const std::string& method, Responder responder) {
    absl::MutexLock lock(&mu_);
    defaults_[method] = std::move(responder);
  }

  std::vector<RecordedRequest> Requests(const std::string& method) const {
    absl::MutexLock lock(&mu_);
    auto it = requests_.find(method);
    return it == requests_.end() ? std::vector<RecordedRequest>{} : it->second;
  }

  int CallCount(const std::string& method) const {
    absl::MutexLock lock(&mu_);
    auto it = call_counts_.find(method);
    return it == call_counts_.end() ? 0 : it->second;
  }

  // Live calls, so shutdown can cut their pending delays short.
  void AddCall(grpc::Alarm* alarm) {
    absl::MutexLock lock(&mu_);
    alarms_.insert(alarm);
  }
  void RemoveCall(grpc::Alarm* alarm) {
    absl::MutexLock lock(&mu_);
    alarms_.erase(alarm);
  }
  void CancelDelays() {
    absl::MutexLock lock(&mu_);
    for (grpc::Alarm* alarm : alarms_) alarm->Cancel();
  }

  std::string address;
  std::unique_ptr<grpc::CallbackGenericService> generic_service;
  std::unique_ptr<grpc::Server> server;

 private:
  const std::set<std::string> services_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::deque<Responder>> scripts_
      ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, Responder> defaults_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::vector<RecordedRequest>> requests_
      ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, int> call_counts_ ABSL_GUARDED_BY(mu_);
  std::set<grpc::Alarm*> alarms_ ABSL_GUARDED_BY(mu_);
};

namespace {

// One call, driven by gRPC's callback API: read a request, answer it from
// the responder, read the next one (streamed requests) or finish. gRPC owns
// the reactor's lifetime: it is created with `new` for gRPC and deletes
// itself in OnDone, as the callback API requires.
class ScriptedCall final : public grpc::ServerGenericBidiReactor {
 public:
  ScriptedCall(ScriptedServer::Impl* server,
               grpc::GenericCallbackServerContext* context)
      : server_(server), context_(context) {
    method_ = server_->Resolve(context_->method());
    if (method_ == nullptr) {
      Finish(grpc::Status(
          grpc::StatusCode::UNIMPLEMENTED,
          absl::StrCat("ScriptedServer does not serve ", context_->method())));
      return;
    }
    std::tie(call_, responder_) = server_->BeginCall(method_->full_name());
    server_->AddCall(&alarm_);
    StartRead(&in_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {  // The client half-closed (or went away).
      FinishOnce(method_->client_streaming()
                     ? grpc::Status::OK
                     : grpc::Status(grpc::StatusCode::INTERNAL,
                                    "ScriptedServer: no request received"));
      return;
    }
    std::shared_ptr<Message> request(
        google::protobuf::MessageFactory::generated_factory()
            ->GetPrototype(method_->input_type())
            ->New());
    if (!ParseFrom(in_, *request)) {
      FinishOnce(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                              "ScriptedServer: unparsable request"));
      return;
    }
    RecordedRequest record{call_, request, {}};
    for (const auto& [key, value] : context_->client_metadata()) {
      record.metadata.emplace(std::string(key.data(), key.size()),
                              std::string(value.data(), value.size()));
    }
    server_->Record(method_->full_name(), std::move(record));
    reply_ = responder_(*request);
    next_response_ = 0;
    if (!reply_.finish.has_value() && !method_->client_streaming()) {
      reply_.finish = grpc::Status::OK;
    }
    if (reply_.delay > absl::ZeroDuration()) {
      alarm_.Set(absl::ToChronoTime(absl::Now() + reply_.delay),
                 [this](bool fired) {
                   if (fired) {
                     WriteNext();
                   } else {
                     FinishOnce(grpc::Status(grpc::StatusCode::CANCELLED,
                                             "ScriptedServer shutting down"));
                   }
                 });
      return;
    }
    WriteNext();
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      FinishOnce(grpc::Status(grpc::StatusCode::CANCELLED, "client gone"));
      return;
    }
    WriteNext();
  }

  void OnDone() override {
    if (method_ != nullptr) server_->RemoveCall(&alarm_);
    delete this;  // NOLINT(cppcoreguidelines-owning-memory): gRPC reactor.
  }

 private:
  static bool ParseFrom(grpc::ByteBuffer& buffer, Message& message) {
    std::vector<grpc::Slice> slices;
    if (!buffer.Dump(&slices).ok()) return false;
    std::string bytes;
    for (const grpc::Slice& slice : slices) {
      bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
    }
    return message.ParseFromString(bytes);
  }

  void WriteNext() {
    if (next_response_ < reply_.responses.size()) {
      const std::string bytes =
          reply_.responses[next_response_++]->SerializeAsString();
      grpc::Slice slice(bytes);
      out_ = grpc::ByteBuffer(&slice, 1);
      StartWrite(&out_);
      return;
    }
    if (reply_.finish.has_value()) {
      FinishOnce(*reply_.finish);
      return;
    }
    StartRead(&in_);
  }

  void FinishOnce(const grpc::Status& status) {
    if (finished_) return;
    finished_ = true;
    Finish(status);
  }

  ScriptedServer::Impl* server_;
  grpc::GenericCallbackServerContext* context_;
  const MethodDescriptor* method_ = nullptr;
  int call_ = 0;
  Responder responder_;
  Reply reply_;
  size_t next_response_ = 0;
  grpc::ByteBuffer in_;
  grpc::ByteBuffer out_;
  grpc::Alarm alarm_;
  bool finished_ = false;
};

class ScriptedService final : public grpc::CallbackGenericService {
 public:
  explicit ScriptedService(ScriptedServer::Impl* server) : server_(server) {}

  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override {
    return new ScriptedCall(server_, context);  // NOLINT: gRPC owns it.
  }

 private:
  ScriptedServer::Impl* server_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ScriptedServer>> ScriptedServer::Start(
    const std::vector<std::string>& services) {
  // Servers and channels come and go between tests: gRPC must not.
  auth::KeepGrpcInitialized();
  for (const std::string& name : services) {
    if (google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
            name) == nullptr) {
      return absl::NotFoundError(absl::StrCat(
          "ScriptedServer: service '", name,
          "' is not linked into this binary (reference one of its generated "
          "types, or check the spelling)"));
    }
  }
  auto impl = std::make_unique<Impl>(
      std::set<std::string>(services.begin(), services.end()));
  impl->generic_service = std::make_unique<ScriptedService>(impl.get());
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterCallbackGenericService(impl->generic_service.get());
  builder.SetMaxReceiveMessageSize(-1);
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr || port == 0) {
    return absl::UnavailableError("ScriptedServer: cannot listen on loopback");
  }
  impl->address = absl::StrCat("127.0.0.1:", port);
  return std::unique_ptr<ScriptedServer>(new ScriptedServer(std::move(impl)));
}

ScriptedServer::ScriptedServer(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}

ScriptedServer::~ScriptedServer() {
  impl_->CancelDelays();
  impl_->server->Shutdown(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  impl_->server->Wait();
}

const std::string& ScriptedServer::address() const { return impl_->address; }

std::shared_ptr<grpc::Channel> ScriptedServer::NewChannel() const {
  return grpc::CreateChannel(impl_->address,
                             grpc::InsecureChannelCredentials());
}

void ScriptedServer::Enqueue(const std::string& method, Responder responder) {
  if (!impl_->Serves(method)) {
    ADD_FAILURE() << "ScriptedServer::Enqueue: '" << method
                  << "' is not a method of a served service";
  }
  impl_->Enqueue(method, std::move(responder));
}

void ScriptedServer::SetDefault(const std::string& method,
                                Responder responder) {
  if (!impl_->Serves(method)) {
    ADD_FAILURE() << "ScriptedServer::SetDefault: '" << method
                  << "' is not a method of a served service";
  }
  impl_->SetDefault(method, std::move(responder));
}

std::vector<RecordedRequest> ScriptedServer::Requests(
    const std::string& method) const {
  return impl_->Requests(method);
}

int ScriptedServer::CallCount(const std::string& method) const {
  return impl_->CallCount(method);
}

}  // namespace gcpstream::testing
