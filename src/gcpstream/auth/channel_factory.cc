#include "gcpstream/auth/channel_factory.h"

#include <cstdlib>

#include <grpc/grpc.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "gcpstream/auth/user_agent.h"
#include "gcpstream/base/host_port.h"

namespace gcpstream::auth {

namespace {

// gRPC's callback API runs on a completion queue shared by every channel
// that made a callback call, and shut down when the last such channel is
// destroyed; where the poller cannot run callbacks itself (this
// project's CI machine) the queue has "nexting" threads, and a new queue
// made while the old one's threads still drain aborts the process. This
// channel makes one call and is never destroyed, so the queue is made once.
void HoldCallbackQueue() {
  struct Holder {
    std::shared_ptr<grpc::Channel> channel;
    grpc::ClientContext context;
    grpc::ByteBuffer request;
    grpc::ByteBuffer response;
    absl::Notification done;
  };
  // Never destroyed, on purpose (above).
  Holder& holder = *std::make_unique<Holder>().release();
  holder.channel =
      grpc::CreateChannel("127.0.0.1:9", grpc::InsecureChannelCredentials());
  grpc::Slice empty("");
  holder.request = grpc::ByteBuffer(&empty, 1);  // Empty, but a message.
  // Past its deadline: ends at once, connecting nowhere.
  holder.context.set_deadline(std::chrono::system_clock::now());
  grpc::GenericStub stub(holder.channel);
  stub.UnaryCall(&holder.context, "/gcpstream.Keep/Hold", grpc::StubOptions(),
                 &holder.request, &holder.response,
                 [&holder](const grpc::Status&) { holder.done.Notify(); });
  holder.done.WaitForNotificationWithTimeout(absl::Seconds(10));
}

}  // namespace

void KeepGrpcInitialized() {
  // Never shut down: balanced by no grpc_shutdown().
  static const bool kInitialized = [] {
    grpc_init();
    HoldCallbackQueue();
    return true;
  }();
  (void)kInitialized;
}

absl::StatusOr<ChannelTarget> ResolveTarget(Service service,
                                            const ChannelOptions& options) {
  const ServiceEndpoint& endpoint = EndpointOf(service);
  if (options.endpoint.has_value()) {
    auto parsed = ParseHostPort(*options.endpoint,
                                absl::StrCat(endpoint.name, " endpoint"));
    if (!parsed.ok()) return parsed.status();
    return ChannelTarget{parsed->ToString(), options.plaintext, false,
                         options.credentials};
  }
  if (!endpoint.emulator_env.empty()) {
    const std::string variable(endpoint.emulator_env);
    if (const char* value = std::getenv(variable.c_str());
        value != nullptr && *value != '\0') {
      auto parsed = ParseHostPort(value, variable);
      if (!parsed.ok()) return parsed.status();
      return ChannelTarget{parsed->ToString(), true, true, options.credentials};
    }
  }
  return ChannelTarget{std::string(endpoint.default_endpoint),
                       options.plaintext, false, options.credentials};
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(
    const ChannelTarget& target, bool own_connections) {
  KeepGrpcInitialized();
  grpc::ChannelArguments args;
  if (own_connections) args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  // Responses (Spanner result sets, Bigtable rows) can exceed gRPC's 4 MiB
  // default; the services bound them themselves.
  args.SetMaxReceiveMessageSize(-1);
  args.SetUserAgentPrefix(UserAgent());
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (target.plaintext) {
    if (absl::Status refused =
            CheckNoCredentialsForPlaintext(target.credentials, target.address);
        !refused.ok()) {
      return refused;
    }
    credentials = grpc::InsecureChannelCredentials();
  } else if (!target.credentials.empty()) {
    absl::StatusOr<std::shared_ptr<CachedTokenSource>> tokens =
        TokensFor(target.credentials);
    if (!tokens.ok()) return tokens.status();
    credentials = grpc::CompositeChannelCredentials(
        grpc::SslCredentials({}),
        grpc::MetadataCredentialsFromPlugin(
            std::make_unique<TokenCallCredentials>(
                *tokens, target.credentials.quota_project)));
  } else {
    credentials = grpc::GoogleDefaultCredentials();
    if (credentials == nullptr) {
      return absl::UnauthenticatedError(absl::StrCat(
          "no application-default credentials found for ", target.address,
          ": set GOOGLE_APPLICATION_CREDENTIALS to a service-account key "
          "file, run `gcloud auth application-default login`, or run on "
          "Google Cloud; for a local emulator export its *_EMULATOR_HOST"));
    }
  }
  return grpc::CreateCustomChannel(target.address, credentials, args);
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(
    Service service, const ChannelOptions& options) {
  auto target = ResolveTarget(service, options);
  if (!target.ok()) return target.status();
  return MakeChannel(*target);
}

}  // namespace gcpstream::auth
