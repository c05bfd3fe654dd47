#include "gcpstream/iceberg/catalog/rest_fixture.h"

#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gcpstream/emulators/loopback_port.h"
#include "gcpstream/http/http_client.h"

namespace gcpstream::iceberg::testing {

using http::HttpRequest;
using http::HttpResponse;
using http::SendHttpRequest;

absl::StatusOr<std::unique_ptr<RestCatalogFixture>> RestCatalogFixture::Start(
    const std::string& jar, const std::string& warehouse) {
  if (!std::filesystem::exists(jar)) {
    return absl::FailedPreconditionError(
        absl::StrCat(jar, " is missing: run scripts/setup.sh"));
  }
  std::filesystem::create_directories(warehouse);
  // A port taken between the pick and the bind makes the server exit:
  // try another.
  absl::Status last = absl::UnavailableError("not started");
  for (int attempt = 0; attempt < 3; ++attempt) {
    absl::StatusOr<int> port = emulators::PickFreeLoopbackPort();
    if (!port.ok()) return port.status();
    emulators::ChildProcessOptions options;
    options.argv = {"/usr/bin/env",
                    absl::StrCat("CATALOG_WAREHOUSE=", warehouse),
                    absl::StrCat("CATALOG_REST_PORT=", *port),
                    "java",
                    "-jar",
                    jar};
    options.log_path = warehouse + ".log";
    absl::StatusOr<std::unique_ptr<emulators::ChildProcess>> process =
        emulators::ChildProcess::Start(options);
    if (!process.ok()) return process.status();
    const std::string uri = absl::StrCat("http://127.0.0.1:", *port);
    const absl::Time deadline = absl::Now() + absl::Seconds(90);
    while (absl::Now() < deadline) {
      if (std::optional<std::string> ended = (*process)->Poll()) {
        last = absl::UnavailableError(
            absl::StrCat("the REST catalog server ended (", *ended, "); see ",
                         options.log_path));
        break;
      }
      HttpRequest request;
      request.url = uri + "/v1/config";
      request.timeout = absl::Seconds(2);
      absl::StatusOr<HttpResponse> response = SendHttpRequest(request);
      if (response.ok() && response->status == 200) {
        return std::make_unique<RestCatalogFixture>(*std::move(process), uri);
      }
      absl::SleepFor(absl::Milliseconds(200));
    }
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("the REST catalog server did not answer in 90 s; see ",
                       options.log_path));
    }
  }
  return last;
}

}  // namespace gcpstream::iceberg::testing
