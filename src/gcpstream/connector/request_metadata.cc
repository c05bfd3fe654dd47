#include "gcpstream/connector/request_metadata.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gcpstream::connector {

std::string UrlEncode(absl::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.' ||
        c == '~') {
      out.push_back(c);
    } else {
      absl::StrAppendFormat(&out, "%%%02X", static_cast<unsigned char>(c));
    }
  }
  return out;
}

void AddRoutingParam(grpc::ClientContext& context, absl::string_view field,
                     absl::string_view value) {
  context.AddMetadata("x-goog-request-params",
                      absl::StrCat(field, "=", UrlEncode(value)));
}

void AddResourcePrefix(grpc::ClientContext& context,
                       absl::string_view resource) {
  context.AddMetadata("google-cloud-resource-prefix", std::string(resource));
}

void AddRouteToLeader(grpc::ClientContext& context) {
  context.AddMetadata("x-goog-spanner-route-to-leader", "true");
}

}  // namespace gcpstream::connector
