#include "gcpstream/iceberg/catalog/catalog_spec.h"

#include <cstdlib>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gcpstream/iceberg/catalog/filesystem_catalog.h"
#include "gcpstream/iceberg/catalog/rest_catalog.h"
#include "gcpstream/iceberg/io/gcs_file_io.h"

namespace gcpstream::iceberg {

bool IsRestCatalogUri(absl::string_view catalog) {
  return absl::StartsWith(catalog, "http://") ||
         absl::StartsWith(catalog, "https://");
}

namespace {

// Whether a REST catalog gets Google access tokens (catalog-auth).
absl::StatusOr<bool> UsesGoogleTokens(const CatalogSpec& spec) {
  if (spec.catalog_auth == "google") {
    if (!spec.token_env.empty()) {
      return absl::InvalidArgumentError(
          "catalog-auth google and token-env both say how to authenticate: "
          "keep one");
    }
    return true;
  }
  if (spec.catalog_auth == "none") return false;
  if (!spec.catalog_auth.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "catalog-auth '", spec.catalog_auth, "' is not one of: google, none"));
  }
  absl::string_view host = spec.catalog;
  absl::ConsumePrefix(&host, "https://");
  host = host.substr(0, host.find_first_of(":/"));
  return spec.token_env.empty() && absl::EndsWith(host, ".googleapis.com");
}

}  // namespace

absl::StatusOr<std::unique_ptr<Catalog>> OpenCatalog(const CatalogSpec& spec) {
  if (!IsRestCatalogUri(spec.catalog)) {
    if (!spec.rest_warehouse.empty() || !spec.token_env.empty() ||
        !spec.catalog_auth.empty()) {
      return absl::InvalidArgumentError(
          "rest-warehouse, token-env and catalog-auth apply to REST catalogs "
          "only");
    }
    absl::string_view path = spec.catalog;
    absl::ConsumePrefix(&path, "file://");
    if (path.empty() ||
        (absl::StrContains(path, "://") && !absl::StartsWith(path, "gs://"))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "catalog '", spec.catalog,
          "' is neither a REST catalog (http:// or https://) nor a "
          "filesystem warehouse (a directory, a file:// URI or a "
          "gs://bucket/prefix)"));
    }
    if (absl::StartsWith(path, "gs://")) {
      if (absl::StatusOr<std::pair<std::string, std::string>> bucket =
              ParseGcsUri(absl::StrCat(path, "/x"));
          !bucket.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "catalog '", spec.catalog,
            "': a gs:// warehouse needs a bucket: write gs://BUCKET/PREFIX"));
      }
    }
    return std::make_unique<FilesystemCatalog>(
        std::string(path),
        std::make_shared<SchemeFileIO>(
            rest::RestTargetOptions{.credentials = spec.credentials}));
  }
  RestCatalogOptions options;
  options.uri = spec.catalog;
  options.warehouse = spec.rest_warehouse;
  absl::StatusOr<bool> google = UsesGoogleTokens(spec);
  if (!google.ok()) return google.status();
  if (!spec.token_env.empty()) {
    const char* token = std::getenv(spec.token_env.c_str());
    if (token == nullptr || *token == '\0') {
      return absl::InvalidArgumentError(absl::StrCat(
          "token-env ", spec.token_env, ": the variable is not set"));
    }
    options.token = token;
  } else if (*google) {
    absl::StatusOr<std::shared_ptr<auth::CachedTokenSource>> tokens =
        auth::TokensFor(spec.credentials);
    if (!tokens.ok()) return tokens.status();
    options.tokens = *std::move(tokens);
    options.quota_project = spec.credentials.quota_project;
  }
  absl::StatusOr<RestCatalog> rest = RestCatalog::Connect(options);
  if (!rest.ok()) {
    return absl::Status(
        rest.status().code() == absl::StatusCode::kInvalidArgument
            ? absl::StatusCode::kFailedPrecondition
            : rest.status().code(),
        absl::StrCat("catalog ", spec.catalog, ": ", rest.status().message()));
  }
  return std::make_unique<RestCatalog>(*std::move(rest));
}

absl::StatusOr<TableIdentifier> ParseTableIdentifier(absl::string_view text) {
  std::vector<std::string> levels = absl::StrSplit(text, '.');
  for (const std::string& level : levels) {
    if (level.empty() || absl::StrContains(level, '/')) {
      return absl::InvalidArgumentError(absl::StrCat(
          "table '", text,
          "' is not a table name: write namespace.table (e.g. db.orders)"));
    }
  }
  if (levels.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "table '", text, "' needs a namespace: write namespace.table"));
  }
  TableIdentifier table;
  table.name = levels.back();
  levels.pop_back();
  table.namespace_levels = std::move(levels);
  return table;
}

}  // namespace gcpstream::iceberg
