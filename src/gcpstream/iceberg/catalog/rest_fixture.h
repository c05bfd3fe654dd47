#ifndef GCPSTREAM_ICEBERG_CATALOG_REST_FIXTURE_H_
#define GCPSTREAM_ICEBERG_CATALOG_REST_FIXTURE_H_

// Test-only: Iceberg's reference REST catalog server (the jar
// scripts/setup.sh fetches from Maven Central), run on a free loopback port
// with its warehouse in a directory of the test's.

#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "gcpstream/emulators/child_process.h"

namespace gcpstream::iceberg::testing {

class RestCatalogFixture {
 public:
  // Starts the server and waits until it answers GET /v1/config; its log is
  // `<warehouse>.log`.
  static absl::StatusOr<std::unique_ptr<RestCatalogFixture>> Start(
      const std::string& jar, const std::string& warehouse);

  // http://127.0.0.1:<port>
  const std::string& uri() const { return uri_; }

  RestCatalogFixture(std::unique_ptr<emulators::ChildProcess> process,
                     std::string uri)
      : process_(std::move(process)), uri_(std::move(uri)) {}

 private:
  std::unique_ptr<emulators::ChildProcess> process_;
  std::string uri_;
};

}  // namespace gcpstream::iceberg::testing

#endif  // GCPSTREAM_ICEBERG_CATALOG_REST_FIXTURE_H_
