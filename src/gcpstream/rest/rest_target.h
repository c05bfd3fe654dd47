#ifndef GCPSTREAM_REST_REST_TARGET_H_
#define GCPSTREAM_REST_REST_TARGET_H_

#include <string>

#include "absl/status/statusor.h"
#include "gcpstream/auth/credentials_options.h"
#include "gcpstream/rest/rest_client.h"

namespace gcpstream::rest {

// A Google REST API: where it lives and which variable, if any, points it
// at an emulator (host:port or http://host:port).
struct RestService {
  std::string production_endpoint;  // "https://storage.googleapis.com"
  std::string emulator_env;         // "STORAGE_EMULATOR_HOST"
};

// What a connector's options say about reaching it.
struct RestTargetOptions {
  // `endpoint`: a URL instead of production; an http:// endpoint is
  // plaintext without credentials, like an emulator.
  std::string endpoint{};
  auth::CredentialsOptions credentials{};
};

// The client options for `service`: an explicit endpoint wins, then the
// emulator variable (plaintext, no credentials), then production with the
// credentials' tokens and quota project. A key file with a plaintext
// target is refused, naming the option.
absl::StatusOr<RestClientOptions> ResolveRestTarget(
    const RestService& service, const RestTargetOptions& options);

}  // namespace gcpstream::rest

#endif  // GCPSTREAM_REST_REST_TARGET_H_
