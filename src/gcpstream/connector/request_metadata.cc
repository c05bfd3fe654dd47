#include "gcpstream/connector/request_metadata.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace gcpstream::connector {

std::string UrlEncode(absl::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.' ||
        c == '~') {
      out.push_back(c);
    } else {
      const auto byte = static_cast<unsigned char>(c);
      out.push_back('%');
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xF]);
    }
  }
  return out;
}

std::string RoutingParam(absl::string_view field, absl::string_view value) {
  return absl::StrCat(field, "=", UrlEncode(value));
}

void AddRoutingParam(grpc::ClientContext& context, absl::string_view field,
                     absl::string_view value) {
  context.AddMetadata("x-goog-request-params", RoutingParam(field, value));
}

void AddRoutingParam(grpc::ClientContext& context, const std::string& param) {
  context.AddMetadata("x-goog-request-params", param);
}

void AddResourcePrefix(grpc::ClientContext& context,
                       absl::string_view resource) {
  context.AddMetadata("google-cloud-resource-prefix", std::string(resource));
}

void AddRouteToLeader(grpc::ClientContext& context) {
  context.AddMetadata("x-goog-spanner-route-to-leader", "true");
}

}  // namespace gcpstream::connector
