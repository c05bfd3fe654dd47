#ifndef GCPSTREAM_BASE_HOST_PORT_H_
#define GCPSTREAM_BASE_HOST_PORT_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gcpstream {

// A network endpoint as written in options and in the *_EMULATOR_HOST
// variables: `host:port`, with IPv6 literals in brackets (`[::1]:8085`).
struct HostPort {
  std::string host;  // Without brackets, even for IPv6 literals.
  int port = 0;

  // Prints back the `host:port` spelling, bracketing IPv6 literals.
  std::string ToString() const;
};

// Parses `host:port`. `option_name` names the option or variable in the
// error, so a user knows which setting to fix.
absl::StatusOr<HostPort> ParseHostPort(absl::string_view text,
                                       absl::string_view option_name);

}  // namespace gcpstream

#endif  // GCPSTREAM_BASE_HOST_PORT_H_
