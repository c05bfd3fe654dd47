#include "gcpstream/base/host_port.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace gcpstream {
namespace {

absl::Status Invalid(absl::string_view option_name, absl::string_view text,
                     absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat(option_name, ": '", text, "' is not a valid host:port (",
                   why, "); expected e.g. 'localhost:8085' or '[::1]:8085'"));
}

}  // namespace

std::string HostPort::ToString() const {
  if (host.find(':') != std::string::npos) {
    return absl::StrCat("[", host, "]:", port);
  }
  return absl::StrCat(host, ":", port);
}

absl::StatusOr<HostPort> ParseHostPort(absl::string_view text,
                                       absl::string_view option_name) {
  if (text.empty()) return Invalid(option_name, text, "empty");
  if (absl::StripAsciiWhitespace(text) != text) {
    return Invalid(option_name, text, "leading or trailing whitespace");
  }
  absl::string_view host;
  absl::string_view port_text;
  if (text.front() == '[') {
    const size_t close = text.find(']');
    if (close == absl::string_view::npos) {
      return Invalid(option_name, text, "unterminated '['");
    }
    host = text.substr(1, close - 1);
    absl::string_view rest = text.substr(close + 1);
    if (rest.empty() || rest.front() != ':') {
      return Invalid(option_name, text, "missing ':port' after ']'");
    }
    port_text = rest.substr(1);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == absl::string_view::npos) {
      return Invalid(option_name, text, "missing ':port'");
    }
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
    if (host.find(':') != absl::string_view::npos) {
      return Invalid(option_name, text, "IPv6 literals need brackets");
    }
  }
  if (host.empty()) return Invalid(option_name, text, "empty host");
  int port = 0;
  if (!absl::SimpleAtoi(port_text, &port) || port < 1 || port > 65535 ||
      port_text.front() == '+' || port_text.front() == '-') {
    return Invalid(option_name, text, "port must be a number in 1..65535");
  }
  return HostPort{std::string(host), port};
}

}  // namespace gcpstream
