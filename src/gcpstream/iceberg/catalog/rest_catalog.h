#ifndef GCPSTREAM_ICEBERG_CATALOG_REST_CATALOG_H_
#define GCPSTREAM_ICEBERG_CATALOG_REST_CATALOG_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gcpstream/auth/cached_token_source.h"

#include "gcpstream/http/http_client.h"
#include "gcpstream/iceberg/catalog/catalog.h"

namespace gcpstream::iceberg {

struct RestCatalogOptions {
  // The catalog's base URI, e.g. http://127.0.0.1:8181 (routes are
  // `<uri>/v1/...`).
  std::string uri;
  // The `warehouse` the catalog is asked for in GET /v1/config, if any.
  std::string warehouse;
  // A bearer token sent as `Authorization`; never logged.
  std::string token;
  // Instead of `token`: Google access tokens (BigLake metastore), fetched
  // and refreshed by the cache, and the project billed for the calls.
  std::shared_ptr<auth::CachedTokenSource> tokens;
  std::string quota_project;
  absl::Duration request_timeout = absl::Seconds(60);
};

// A catalog spoken to through the Iceberg REST protocol (BigLake metastore
// speaks it too). Commits send the requirement and update sets Iceberg's
// own clients send, so the server refuses a commit built on a stale table:
// 409 is Aborted (reload, recompute, retry); 500, 502, 503 and 504 are
// Unknown (the commit may have happened: look for it before retrying);
// other errors carry the server's message.
class RestCatalog final : public Catalog {
 public:
  // Reads the catalog's configuration (GET /v1/config): its path prefix.
  static absl::StatusOr<RestCatalog> Connect(RestCatalogOptions options);

  absl::StatusOr<LoadedTable> Load(const TableIdentifier& table) override;
  // Creates the namespace too when it is missing.
  absl::StatusOr<LoadedTable> Create(const TableIdentifier& table,
                                     const TableCreation& creation) override;
  absl::StatusOr<LoadedTable> Commit(const TableIdentifier& table,
                                     const LoadedTable& base,
                                     const TableChange& change) override;

 private:
  explicit RestCatalog(RestCatalogOptions options)
      : options_(std::move(options)) {}

  // One request; the status its answer stands for (see the class comment;
  // `is_commit`: a 5xx may have been applied).
  absl::StatusOr<http::HttpResponse> Send(const std::string& method,
                                          const std::string& url,
                                          const nlohmann::ordered_json* body,
                                          bool is_commit) const;
  std::string NamespaceUrl(const TableIdentifier& table) const;
  std::string TableUrl(const TableIdentifier& table) const;

  RestCatalogOptions options_;
  // `<uri>/v1/<prefix>` (no prefix: `<uri>/v1`).
  std::string base_url_;
};

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_CATALOG_REST_CATALOG_H_
