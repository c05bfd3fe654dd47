#include "gcpstream/bigquery/load_jobs_client.h"

#include <utility>

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/storage/storage_client.h"

namespace gcpstream::bigquery {
namespace {

using Json = nlohmann::json;

std::string JobsPath(const std::string& project) {
  return absl::StrCat("/bigquery/v2/projects/", project, "/jobs");
}

// A string member of `object`, or "" (absent, or not a string).
std::string StringField(const Json& object, const char* name) {
  if (!object.is_object()) return "";
  const auto found = object.find(name);
  return found != object.end() && found->is_string() ? found->get<std::string>()
                                                     : std::string();
}

// The jobs API's reason of an errorResult -> a status code: what the
// service says went wrong with the load, not with the call.
absl::StatusCode CodeOfReason(const std::string& reason) {
  if (reason == "notFound") return absl::StatusCode::kNotFound;
  if (reason == "accessDenied") return absl::StatusCode::kPermissionDenied;
  if (reason == "quotaExceeded" || reason == "rateLimitExceeded") {
    return absl::StatusCode::kResourceExhausted;
  }
  if (reason == "backendError" || reason == "internalError") {
    return absl::StatusCode::kInternal;
  }
  return absl::StatusCode::kInvalidArgument;
}

std::string ErrorText(const Json& error) {
  std::string text = StringField(error, "message");
  if (text.empty()) text = "(no message)";
  const std::string location = StringField(error, "location");
  if (!location.empty()) absl::StrAppend(&text, " (at ", location, ")");
  const std::string reason = StringField(error, "reason");
  if (!reason.empty()) absl::StrAppend(&text, " [", reason, "]");
  return text;
}

}  // namespace

absl::StatusOr<LoadJobState> LoadJobStateFromJson(const std::string& body) {
  const Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object() || !json.contains("status") ||
      !json["status"].is_object()) {
    return absl::InternalError("the jobs API answered with no job status: '" +
                               body.substr(0, 200) + "'");
  }
  LoadJobState state;
  if (json.contains("jobReference") && json["jobReference"].is_object()) {
    state.location = StringField(json["jobReference"], "location");
  }
  const Json& status = json["status"];
  state.done = StringField(status, "state") == "DONE";
  if (status.contains("errorResult") && status["errorResult"].is_object()) {
    const Json& error = status["errorResult"];
    std::string text = ErrorText(error);
    if (status.contains("errors") && status["errors"].is_array()) {
      const Json& errors = status["errors"];
      for (const Json& each : errors) {
        if (!each.is_object() || ErrorText(each) == text) continue;
        absl::StrAppend(&text, "; first error: ", ErrorText(each));
        break;
      }
      if (errors.size() > 1) {
        absl::StrAppend(&text, "; ", errors.size(), " errors in all");
      }
    }
    state.error =
        absl::Status(CodeOfReason(StringField(error, "reason")), text);
  }
  int64_t rows = 0;
  if (json.contains("statistics") && json["statistics"].is_object() &&
      json["statistics"].contains("load") &&
      json["statistics"]["load"].is_object()) {
    const std::string text =
        StringField(json["statistics"]["load"], "outputRows");
    if (absl::SimpleAtoi(text, &rows)) state.output_rows = rows;
  }
  return state;
}

absl::StatusOr<LoadJobState> LoadJobsClient::Insert(
    const LoadJobRequest& request) const {
  Json reference = {{"projectId", request.table.project},
                    {"jobId", request.job_id}};
  if (!request.location.empty()) reference["location"] = request.location;
  Json load = {{"sourceUris", request.uris},
               {"sourceFormat", "NEWLINE_DELIMITED_JSON"},
               {"destinationTable",
                {{"projectId", request.table.project},
                 {"datasetId", request.table.dataset},
                 {"tableId", request.table.table}}},
               {"writeDisposition", "WRITE_APPEND"},
               {"createDisposition", "CREATE_NEVER"}};
  if (!request.schema_update_options.empty()) {
    load["schemaUpdateOptions"] = request.schema_update_options;
  }
  Json body = {{"jobReference", std::move(reference)},
               {"configuration", {{"load", std::move(load)}}}};
  if (!request.labels.empty()) {
    Json labels = Json::object();
    for (const auto& [key, value] : request.labels) labels[key] = value;
    body["configuration"]["labels"] = std::move(labels);
  }
  // Idempotent by its job id: a repeat is refused with 409, never run twice
  // (the emulator deviates; docs/bigquery.md).
  absl::StatusOr<http::HttpResponse> response = client_.Send(
      {.method = "POST",
       .path = JobsPath(request.table.project),
       .headers = {"Content-Type: application/json"},
       .body = body.dump(-1, ' ', false, Json::error_handler_t::replace),
       .idempotent = true});
  if (!response.ok()) {
    if (response.status().code() == absl::StatusCode::kAborted) {
      return absl::AlreadyExistsError(response.status().message());
    }
    return response.status();
  }
  return LoadJobStateFromJson(response->body);
}

absl::StatusOr<LoadJobState> LoadJobsClient::Get(
    const std::string& project, const std::string& job_id,
    const std::string& location) const {
  std::string path =
      absl::StrCat(JobsPath(project), "/", storage::PercentEncode(job_id));
  if (!location.empty()) {
    absl::StrAppend(&path, "?location=", storage::PercentEncode(location));
  }
  absl::StatusOr<http::HttpResponse> response =
      client_.Send({.method = "GET", .path = path});
  if (!response.ok()) return response.status();
  return LoadJobStateFromJson(response->body);
}

}  // namespace gcpstream::bigquery
