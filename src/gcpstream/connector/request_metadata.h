#ifndef GCPSTREAM_CONNECTOR_REQUEST_METADATA_H_
#define GCPSTREAM_CONNECTOR_REQUEST_METADATA_H_

#include <string>

#include <grpcpp/client_context.h>

#include "absl/strings/string_view.h"

namespace gcpstream::connector {

// The routing metadata Google's own clients send, so the service's front
// ends route a request by its resource without parsing it:
// - x-goog-request-params: "<field>=<url-encoded value>" for the request
//   field the API's HTTP binding names (topic, session, database, ...);
// - google-cloud-resource-prefix: the database (Spanner);
// - x-goog-spanner-route-to-leader: "true" on requests that write, so they
//   reach the leader region without a hop.
void AddRoutingParam(grpc::ClientContext& context, absl::string_view field,
                     absl::string_view value);
// The same from a value built once by RoutingParam(), for a destination
// whose requests all carry it.
std::string RoutingParam(absl::string_view field, absl::string_view value);
void AddRoutingParam(grpc::ClientContext& context, const std::string& param);
void AddResourcePrefix(grpc::ClientContext& context,
                       absl::string_view resource);
void AddRouteToLeader(grpc::ClientContext& context);

// Percent-encodes everything but RFC 3986's unreserved characters, as the
// routing header's values are.
std::string UrlEncode(absl::string_view value);

}  // namespace gcpstream::connector

#endif  // GCPSTREAM_CONNECTOR_REQUEST_METADATA_H_
