#include "gcpstream/iceberg/catalog/rest_catalog.h"

#include <curl/curl.h>

#include <memory>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "gcpstream/auth/user_agent.h"
#include "gcpstream/http/http_client.h"
#include "gcpstream/iceberg/spec/partition.h"

namespace gcpstream::iceberg {

using http::HttpRequest;
using http::HttpResponse;
using http::SendHttpRequest;

namespace {

using Json = nlohmann::ordered_json;

// A path segment, percent-encoded.
std::string Escape(const std::string& segment) {
  std::unique_ptr<char, void (*)(void*)> escaped(
      curl_easy_escape(nullptr, segment.data(),
                       static_cast<int>(segment.size())),
      curl_free);
  return escaped == nullptr ? segment : std::string(escaped.get());
}

// The error object of an error response (`{"error": {...}}`), if any.
Json ServerError(const HttpResponse& response) {
  Json body = Json::parse(response.body, nullptr, false);
  if (body.is_object() && body.contains("error") && body["error"].is_object()) {
    return body["error"];
  }
  return Json();
}

// The server's own message from an error response, or the body's start.
std::string ServerMessage(const HttpResponse& response, const Json& error) {
  if (error.is_object()) {
    return absl::StrCat(error.value("type", "error"), ": ",
                        error.value("message", ""));
  }
  return response.body.substr(0, 512);
}

// Java catalogs answer 500 for exceptions their handlers do not map, among
// them the validation of a request before anything is written ("Invalid
// schema for v2"): the same request is refused again, so it is not retried.
bool IsValidationRefusal(const Json& error) {
  if (!error.is_object()) return false;
  const std::string type = error.value("type", "");
  return type == "IllegalArgumentException" ||
         type == "IllegalStateException" || type == "ValidationException" ||
         type == "BadRequestException" ||
         type == "UnsupportedOperationException";
}

// The status a response stands for; OK for 2xx.
absl::Status StatusOf(const HttpRequest& request, const HttpResponse& response,
                      bool is_commit) {
  if (response.status >= 200 && response.status < 300) {
    return absl::OkStatus();
  }
  const Json error = ServerError(response);
  const std::string what =
      absl::StrCat(request.method, " ", request.url, " answered ",
                   response.status, " (", ServerMessage(response, error), ")");
  if (response.status >= 500 && IsValidationRefusal(error)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what,
                     "; the catalog refused the request itself, so it "
                     "is not retried"));
  }
  switch (response.status) {
    case 404:
      return absl::NotFoundError(what);
    case 409:
      return absl::AbortedError(what);
    case 401:
      return absl::UnauthenticatedError(what);
    case 403:
      return absl::PermissionDeniedError(what);
    case 500:
    case 502:
    case 503:
    case 504:
      // Before a commit nothing can have changed; after one, the server
      // may have applied it.
      return is_commit ? absl::UnknownError(what)
                       : absl::UnavailableError(what);
    default:
      return response.status >= 500 ? absl::UnavailableError(what)
                                    : absl::InvalidArgumentError(what);
  }
}

absl::StatusOr<LoadedTable> LoadedFrom(const HttpResponse& response,
                                       const std::string& url) {
  Json body = Json::parse(response.body, nullptr, false);
  if (!body.is_object() || !body.contains("metadata") ||
      !body["metadata"].is_object()) {
    return absl::DataLossError(
        absl::StrCat(url, ": the response holds no table metadata"));
  }
  absl::StatusOr<TableMetadata> metadata =
      TableMetadataFromJson(body["metadata"].dump());
  if (!metadata.ok()) {
    return absl::Status(metadata.status().code(),
                        absl::StrCat(url, ": ", metadata.status().message()));
  }
  LoadedTable loaded;
  loaded.metadata = *std::move(metadata);
  loaded.metadata_file = body.value("metadata-location", "");
  return loaded;
}

Json Requirement(const char* type) { return Json{{"type", type}}; }

}  // namespace

absl::StatusOr<RestCatalog> RestCatalog::Connect(RestCatalogOptions options) {
  absl::string_view uri = options.uri;
  while (absl::ConsumeSuffix(&uri, "/")) {
  }
  options.uri = std::string(uri);
  RestCatalog catalog(std::move(options));
  std::string url = absl::StrCat(catalog.options_.uri, "/v1/config");
  if (!catalog.options_.warehouse.empty()) {
    absl::StrAppend(&url, "?warehouse=", Escape(catalog.options_.warehouse));
  }
  absl::StatusOr<HttpResponse> response =
      catalog.Send("GET", url, nullptr, false);
  if (!response.ok()) return response.status();
  Json config = Json::parse(response->body, nullptr, false);
  std::string prefix;
  if (config.is_object() && config.contains("overrides") &&
      config["overrides"].is_object()) {
    prefix = config["overrides"].value("prefix", "");
  }
  catalog.base_url_ = prefix.empty()
                          ? absl::StrCat(catalog.options_.uri, "/v1")
                          : absl::StrCat(catalog.options_.uri, "/v1/", prefix);
  return catalog;
}

std::string RestCatalog::NamespaceUrl(const TableIdentifier& table) const {
  std::vector<std::string> levels;
  levels.reserve(table.namespace_levels.size());
  for (const std::string& level : table.namespace_levels) {
    levels.push_back(Escape(level));
  }
  // Levels are joined with the unit separator, escaped (%1F).
  return absl::StrCat(base_url_, "/namespaces/", absl::StrJoin(levels, "%1F"));
}

std::string RestCatalog::TableUrl(const TableIdentifier& table) const {
  return absl::StrCat(NamespaceUrl(table), "/tables/", Escape(table.name));
}

absl::StatusOr<HttpResponse> RestCatalog::Send(const std::string& method,
                                               const std::string& url,
                                               const Json* body,
                                               bool is_commit) const {
  HttpRequest request;
  request.method = method;
  request.url = url;
  if (body != nullptr) {
    request.headers.emplace_back("Content-Type: application/json");
    request.body = body->dump();
  }
  request.headers.push_back(absl::StrCat("User-Agent: ", auth::UserAgent()));
  if (!options_.token.empty()) {
    request.headers.push_back("Authorization: Bearer " + options_.token);
  } else if (options_.tokens != nullptr) {
    absl::StatusOr<auth::AccessToken> token = options_.tokens->Get();
    if (!token.ok()) return token.status();
    request.headers.push_back("Authorization: Bearer " + token->value);
  }
  if (!options_.quota_project.empty()) {
    request.headers.push_back(
        absl::StrCat("x-goog-user-project: ", options_.quota_project));
  }
  request.timeout = options_.request_timeout;
  absl::StatusOr<HttpResponse> response = SendHttpRequest(request);
  if (!response.ok()) return response.status();
  if (absl::Status status = StatusOf(request, *response, is_commit);
      !status.ok()) {
    return status;
  }
  return response;
}

absl::StatusOr<LoadedTable> RestCatalog::Load(const TableIdentifier& table) {
  const std::string url = TableUrl(table);
  absl::StatusOr<HttpResponse> response = Send("GET", url, nullptr, false);
  if (!response.ok()) return response.status();
  return LoadedFrom(*response, url);
}

absl::StatusOr<LoadedTable> RestCatalog::Create(const TableIdentifier& table,
                                                const TableCreation& creation) {
  Json create{{"name", table.name}, {"schema", SchemaJson(creation.schema)}};
  if (!creation.spec.fields.empty()) {
    create["partition-spec"] =
        Json{{"spec-id", 0},
             {"fields", Json::parse(PartitionSpecFieldsJson(creation.spec))}};
  }
  create["properties"] = creation.properties;
  const std::string tables_url = NamespaceUrl(table) + "/tables";
  absl::StatusOr<HttpResponse> created =
      Send("POST", tables_url, &create, true);
  if (created.status().code() == absl::StatusCode::kNotFound) {
    const Json namespace_body{{"namespace", table.namespace_levels}};
    absl::StatusOr<HttpResponse> namespace_created =
        Send("POST", base_url_ + "/namespaces", &namespace_body, true);
    // Another writer creating it meanwhile is as good.
    if (!namespace_created.ok() &&
        namespace_created.status().code() != absl::StatusCode::kAborted) {
      return namespace_created.status();
    }
    created = Send("POST", tables_url, &create, true);
  }
  if (!created.ok()) return created.status();
  return LoadedFrom(*created, tables_url);
}

absl::StatusOr<LoadedTable> RestCatalog::Commit(const TableIdentifier& table,
                                                const LoadedTable& base,
                                                const TableChange& change) {
  const TableMetadata& metadata = base.metadata;
  Json requirements = Json::array();
  Json updates = Json::array();
  Json uuid = Requirement("assert-table-uuid");
  uuid["uuid"] = metadata.table_uuid;
  requirements.push_back(std::move(uuid));
  if (change.schema.has_value()) {
    Json current = Requirement("assert-current-schema-id");
    current["current-schema-id"] = metadata.current_schema_id;
    Json last = Requirement("assert-last-assigned-field-id");
    last["last-assigned-field-id"] = metadata.last_column_id;
    requirements.push_back(std::move(current));
    requirements.push_back(std::move(last));
    updates.push_back(Json{{"action", "add-schema"},
                           {"schema", SchemaJson(*change.schema)},
                           {"last-column-id", change.last_column_id}});
    // -1: the schema just added (or the equal one the table has).
    updates.push_back(
        Json{{"action", "set-current-schema"}, {"schema-id", -1}});
  }
  if (!change.set_properties.empty()) {
    updates.push_back(
        Json{{"action", "set-properties"}, {"updates", change.set_properties}});
  }
  if (change.snapshot.has_value()) {
    Json ref = Requirement("assert-ref-snapshot-id");
    ref["ref"] = "main";
    ref["snapshot-id"] = metadata.current_snapshot_id.has_value()
                             ? Json(*metadata.current_snapshot_id)
                             : Json(nullptr);
    requirements.push_back(std::move(ref));
    updates.push_back(Json{{"action", "add-snapshot"},
                           {"snapshot", SnapshotToJson(*change.snapshot)}});
    updates.push_back(Json{{"action", "set-snapshot-ref"},
                           {"ref-name", "main"},
                           {"type", "branch"},
                           {"snapshot-id", change.snapshot->snapshot_id}});
  }
  const Json body{{"requirements", std::move(requirements)},
                  {"updates", std::move(updates)}};
  const std::string url = TableUrl(table);
  absl::StatusOr<HttpResponse> response = Send("POST", url, &body, true);
  if (!response.ok()) return response.status();
  return LoadedFrom(*response, url);
}

}  // namespace gcpstream::iceberg
