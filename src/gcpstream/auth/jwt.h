#ifndef GCPSTREAM_AUTH_JWT_H_
#define GCPSTREAM_AUTH_JWT_H_

#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gcpstream::auth {

// base64url without padding (RFC 7515).
std::string Base64UrlEncode(absl::string_view bytes);

// A JWT signed with RS256 by `pem_private_key` (a PKCS#8 PEM, as in a
// service-account key file). Errors never contain the key.
absl::StatusOr<std::string> SignRs256Jwt(const nlohmann::json& header,
                                         const nlohmann::json& claims,
                                         const std::string& pem_private_key);

}  // namespace gcpstream::auth

#endif  // GCPSTREAM_AUTH_JWT_H_
