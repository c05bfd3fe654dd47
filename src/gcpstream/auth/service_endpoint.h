#ifndef GCPSTREAM_AUTH_SERVICE_ENDPOINT_H_
#define GCPSTREAM_AUTH_SERVICE_ENDPOINT_H_

#include "absl/strings/string_view.h"

namespace gcpstream::auth {

// The Google Cloud services gcpstream talks to over gRPC.
enum class Service {
  kPubSub,
  kSpanner,
  kBigtable,
  kBigtableAdmin,
  kBigQueryStorage,
  kCloudTasks,
};

// Where a service lives in production and which variable, if any, redirects
// it to a local emulator. The variables are the ones Google's own client
// libraries honour, so one exported environment serves every tool.
struct ServiceEndpoint {
  absl::string_view name;              // e.g. "pubsub"
  absl::string_view default_endpoint;  // e.g. "pubsub.googleapis.com:443"
  absl::string_view emulator_env;      // empty when the service has none
};

const ServiceEndpoint& EndpointOf(Service service);

}  // namespace gcpstream::auth

#endif  // GCPSTREAM_AUTH_SERVICE_ENDPOINT_H_
