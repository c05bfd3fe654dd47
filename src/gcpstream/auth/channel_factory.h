#ifndef GCPSTREAM_AUTH_CHANNEL_FACTORY_H_
#define GCPSTREAM_AUTH_CHANNEL_FACTORY_H_

#include <memory>
#include <optional>
#include <string>

#include <grpcpp/channel.h>

#include "absl/status/statusor.h"
#include "gcpstream/auth/credentials_options.h"
#include "gcpstream/auth/service_endpoint.h"

namespace gcpstream::auth {

struct ChannelOptions {
  // `host:port` to use instead of the production endpoint. When set, the
  // channel uses TLS with application-default credentials unless
  // `plaintext` is true.
  std::optional<std::string> endpoint{};
  // Talk plaintext without credentials (local test servers, emulators).
  bool plaintext = false;
  // A key file and a quota project for this channel (refused with a
  // plaintext target).
  CredentialsOptions credentials{};
};

// How a channel was resolved; kept apart from the channel so callers can log
// where they connect without ever touching credentials.
struct ChannelTarget {
  std::string address;
  bool plaintext = false;
  bool from_emulator_env = false;
  CredentialsOptions credentials{};
};

// Decides the target for `service`: an explicit endpoint wins, then the
// service's *_EMULATOR_HOST variable (plaintext, no credentials, as Google's
// client libraries do), then the production endpoint with TLS.
absl::StatusOr<ChannelTarget> ResolveTarget(Service service,
                                            const ChannelOptions& options);

// Initializes gRPC, and its callback completion queue, for the rest of the
// process. Otherwise both are shut down when their last user goes and made
// again for the next, and libgrpc 1.51's callback threads may outlive a
// shutdown and abort the next start ("assertion failed: prior > 0" in
// grpc_cq_internal_unref): seen between tests under load, and possible in a
// pipeline whose writers all restart. MakeChannel() calls it; so do the
// test helpers that make channels and servers. A process must not fork
// after it without exec (gRPC's threads do not survive a fork).
void KeepGrpcInitialized();

// Creates a channel to `target`, whose user agent starts with
// "gcpstream/<version>". Production targets use gRPC's Google
// application-default credentials (service-account key file, gcloud user
// credentials or the metadata server), or, when the target names a key
// file or a quota project, gcpstream's own tokens for them
// (TokenCallCredentials). A plaintext target with a key file is refused.
// With `own_connections`, the channel does not share connections with
// other channels to the same target (a pool of channels then spreads calls
// over several connections).
absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(
    const ChannelTarget& target, bool own_connections = false);

absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(
    Service service, const ChannelOptions& options = {});

}  // namespace gcpstream::auth

#endif  // GCPSTREAM_AUTH_CHANNEL_FACTORY_H_
