#ifndef GCPSTREAM_ICEBERG_CATALOG_CATALOG_SPEC_H_
#define GCPSTREAM_ICEBERG_CATALOG_CATALOG_SPEC_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gcpstream/auth/credentials_options.h"
#include "gcpstream/iceberg/catalog/catalog.h"

namespace gcpstream::iceberg {

// How a user names a catalog (options `catalog`, `rest-warehouse`,
// `token-env`, `catalog-auth`, `service-account-key-file`, `quota-project`
// of the command and of the pipeline sink).
struct CatalogSpec {
  // A REST catalog's URI (http://, https://), or a filesystem catalog's
  // warehouse directory (or its file:// URI).
  std::string catalog;
  // The warehouse a REST catalog is asked for.
  std::string rest_warehouse;
  // The environment variable holding a REST catalog's bearer token: the
  // token itself is never written in a command line or a file.
  std::string token_env;
  // How a REST catalog is authenticated: "google" (Google access tokens,
  // as BigLake metastore wants), "none", or empty: "google" for a catalog
  // on *.googleapis.com, else none (option `catalog-auth`).
  std::string catalog_auth;
  // The credentials for Google tokens and for gs:// files and warehouses:
  // `service-account-key-file`, `quota-project`.
  auth::CredentialsOptions credentials;
};

bool IsRestCatalogUri(absl::string_view catalog);

// Opens (for REST: connects to) the catalog. InvalidArgument naming the
// option when the spec is wrong; the catalog's status when it cannot be
// reached.
absl::StatusOr<std::unique_ptr<Catalog>> OpenCatalog(const CatalogSpec& spec);

// "db.orders" (or "a.b.orders") as a table identifier; InvalidArgument
// naming `table` otherwise.
absl::StatusOr<TableIdentifier> ParseTableIdentifier(absl::string_view text);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_CATALOG_CATALOG_SPEC_H_
