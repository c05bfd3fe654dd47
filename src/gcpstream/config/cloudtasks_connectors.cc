// `type: cloud-tasks` for pipeline files: each record becomes one HTTP task
// in a queue (a destination template), its URL and header values rendered
// from the record, its body a field or the whole record. See
// docs/cloudtasks.md.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gcpstream/cloudtasks/cloudtasks_sink.h"
#include "gcpstream/config/connector_registry.h"
#include "gcpstream/config/destination_template.h"
#include "gcpstream/config/failure_handler_config.h"
#include "gcpstream/config/field_path.h"

namespace gcpstream::config {
namespace {

namespace v2 = ::google::cloud::tasks::v2;
using cloudtasks::QueueDestination;
using cloudtasks::Task;

inline constexpr EnumSpelling<v2::HttpMethod> kMethods[] = {
    {"POST", v2::POST},      {"GET", v2::GET},       {"HEAD", v2::HEAD},
    {"PUT", v2::PUT},        {"DELETE", v2::DELETE}, {"PATCH", v2::PATCH},
    {"OPTIONS", v2::OPTIONS}};
inline constexpr EnumOption<v2::HttpMethod> kMethodOption("method", kMethods);

bool CarriesBody(v2::HttpMethod method) {
  return method == v2::POST || method == v2::PUT || method == v2::PATCH;
}

struct TaskMapping {
  std::string project;
  std::string location;
  DestinationTemplate queue;
  DestinationTemplate url;
  v2::HttpMethod method = v2::POST;
  // The body: this field (a string as is, else its JSON text), or the whole
  // record as JSON when unset (POST, PUT and PATCH only).
  std::optional<FieldPath> body_field;
  std::vector<std::pair<std::string, DestinationTemplate>> headers = {};
  std::optional<v2::OidcToken> oidc;
  std::optional<v2::OAuthToken> oauth;
  std::optional<DestinationTemplate> task_id;
};

absl::StatusOr<std::string> Render(const DestinationTemplate& text,
                                   absl::string_view key, const Record& record,
                                   const WriterContext& context) {
  absl::StatusOr<std::string> rendered =
      text.Render(record, context.event_time.value_or(absl::InfinitePast()));
  if (rendered.ok()) return rendered;
  return absl::InvalidArgumentError(
      absl::StrCat("option '", key, "' ('", text.text(),
                   "'): ", rendered.status().message()));
}

absl::StatusOr<std::optional<Task>> ToTask(const TaskMapping& mapping,
                                           const Record& record,
                                           const WriterContext& context) {
  if (!mapping.queue.constant()) {
    if (absl::StatusOr<std::string> queue =
            Render(mapping.queue, "queue", record, context);
        !queue.ok()) {
      return queue.status();
    }
  }
  absl::StatusOr<std::string> url = Render(mapping.url, "url", record, context);
  if (!url.ok()) return url.status();
  Task task;
  v2::HttpRequest& http = *task.mutable_http_request();
  http.set_url(*std::move(url));
  http.set_http_method(mapping.method);
  for (const auto& [name, value] : mapping.headers) {
    absl::StatusOr<std::string> rendered =
        Render(value, absl::StrCat("headers.", name), record, context);
    if (!rendered.ok()) return rendered.status();
    (*http.mutable_headers())[name] = *std::move(rendered);
  }
  if (mapping.body_field.has_value()) {
    absl::StatusOr<json::JsonValue> field = mapping.body_field->Find(record);
    if (!field.ok()) return field.status();
    http.set_body(PayloadText(*field));
  } else if (CarriesBody(mapping.method)) {
    http.set_body(record.CompactText());
  }
  if (mapping.oidc.has_value()) *http.mutable_oidc_token() = *mapping.oidc;
  if (mapping.oauth.has_value()) *http.mutable_oauth_token() = *mapping.oauth;
  return std::optional<Task>(std::move(task));
}

absl::StatusOr<DestinationTemplate> ReadQueueTemplate(OptionMap& options,
                                                      absl::string_view key,
                                                      const std::string& text) {
  absl::StatusOr<DestinationTemplate> parsed = DestinationTemplate::Parse(text);
  if (parsed.ok()) return parsed;
  return ConfigError(options.PositionOf(key),
                     absl::StrCat(options.what(), ": option '", key,
                                  "': ", parsed.status().message()));
}

absl::StatusOr<TaskMapping> ReadTaskMapping(OptionMap& options) {
  TaskMapping mapping;
  absl::StatusOr<std::string> project = RequiredProject(options);
  if (!project.ok()) return project.status();
  mapping.project = *project;
  for (const auto& [key, target] :
       {std::pair<const char*, std::string*>{"location", &mapping.location}}) {
    absl::StatusOr<std::string> value = options.RequiredString(key);
    if (!value.ok()) return value.status();
    *target = *value;
  }
  for (const auto& [key, target] :
       {std::pair<const char*, DestinationTemplate*>{"queue", &mapping.queue},
        {"url", &mapping.url}}) {
    absl::StatusOr<std::string> text = options.RequiredString(key);
    if (!text.ok()) return text.status();
    absl::StatusOr<DestinationTemplate> parsed =
        ReadQueueTemplate(options, key, *text);
    if (!parsed.ok()) return parsed.status();
    *target = *std::move(parsed);
  }
  if (absl::Status status =
          AssignIfSet(options.Enum(kMethodOption), mapping.method);
      !status.ok()) {
    return status;
  }
  absl::StatusOr<std::optional<std::string>> body =
      options.String("body-field");
  if (!body.ok()) return body.status();
  if (body->has_value()) {
    if (!CarriesBody(mapping.method)) {
      return options.Error(
          "body-field",
          absl::StrCat("option 'body-field' is set, but method ",
                       kMethodOption.Name(mapping.method),
                       " carries no body (POST, PUT or PATCH do)"));
    }
    absl::StatusOr<FieldPath> path = FieldPath::Parse(**body);
    if (!path.ok()) return options.Error("body-field", path.status().message());
    mapping.body_field = *std::move(path);
  }
  absl::StatusOr<std::optional<OptionMap>> headers = options.Map("headers");
  if (!headers.ok()) return headers.status();
  if (headers->has_value()) {
    for (const std::string& name : (*headers)->Keys()) {
      absl::StatusOr<std::string> text = (*headers)->RequiredString(name);
      if (!text.ok()) return text.status();
      absl::StatusOr<DestinationTemplate> parsed =
          ReadQueueTemplate(**headers, name, *text);
      if (!parsed.ok()) return parsed.status();
      mapping.headers.emplace_back(name, *std::move(parsed));
    }
  }
  absl::StatusOr<std::optional<std::string>> oidc =
      options.String("oidc-service-account");
  absl::StatusOr<std::optional<std::string>> audience =
      options.String("oidc-audience");
  absl::StatusOr<std::optional<std::string>> oauth =
      options.String("oauth-service-account");
  absl::StatusOr<std::optional<std::string>> scope =
      options.String("oauth-scope");
  for (const auto* read : {&oidc, &audience, &oauth, &scope}) {
    if (!read->ok()) return read->status();
  }
  if (oidc->has_value() && oauth->has_value()) {
    return options.Error(
        "oauth-service-account",
        "options 'oidc-service-account' and 'oauth-service-account' are "
        "mutually exclusive: a task carries one token (OIDC for Cloud Run "
        "and your own endpoints, OAuth for Google APIs)");
  }
  if (audience->has_value() && !oidc->has_value()) {
    return options.Error("oidc-audience",
                         "option 'oidc-audience' needs 'oidc-service-account'");
  }
  if (scope->has_value() && !oauth->has_value()) {
    return options.Error("oauth-scope",
                         "option 'oauth-scope' needs 'oauth-service-account'");
  }
  if (oidc->has_value()) {
    v2::OidcToken token;
    token.set_service_account_email(**oidc);
    if (audience->has_value()) token.set_audience(**audience);
    mapping.oidc = std::move(token);
  }
  if (oauth->has_value()) {
    v2::OAuthToken token;
    token.set_service_account_email(**oauth);
    if (scope->has_value()) token.set_scope(**scope);
    mapping.oauth = std::move(token);
  }
  absl::StatusOr<std::optional<std::string>> task_id =
      options.String("task-id-extractor");
  if (!task_id.ok()) return task_id.status();
  if (task_id->has_value()) {
    absl::StatusOr<DestinationTemplate> parsed =
        ReadQueueTemplate(options, "task-id-extractor", **task_id);
    if (!parsed.ok()) return parsed.status();
    mapping.task_id = *std::move(parsed);
  }
  return mapping;
}

absl::StatusOr<std::shared_ptr<runtime::Sink<Record>>> CloudTasksSink(
    OptionMap& options, const BuildEnvironment& environment) {
  cloudtasks::CloudTasksSinkOptions sink;
  sink.name = environment.name;
  absl::StatusOr<TaskMapping> mapping = ReadTaskMapping(options);
  if (!mapping.ok()) return mapping.status();
  if (absl::Status read =
          cloudtasks::CloudTasksSinkOptionTable().Read(options, sink);
      !read.ok()) {
    return read;
  }
  if (absl::Status valid = cloudtasks::CheckCloudTasksSinkOptions(sink);
      !valid.ok()) {
    return ConfigError(options.position(),
                       absl::StrCat(options.what(), ": ", valid.message()));
  }
  absl::StatusOr<FailureHandlerSpec> handler = ReadFailureHandler(options);
  if (!handler.ok()) return handler.status();
  auto shared = std::make_shared<const TaskMapping>(*std::move(mapping));
  cloudtasks::TaskSerializer<Record> serializer{
      .task = [shared](const Record& record, const WriterContext& context)
          -> absl::StatusOr<std::optional<Task>> {
        auto task = ToTask(*shared, record, context);
        if (!task.ok()) return WithRecord(task.status(), record);
        return task;
      }};
  if (shared->task_id.has_value()) {
    // A key that cannot be rendered fails the job (the sink's rule for a
    // record without a name), naming the template.
    serializer.task_id = [shared](const Record& record,
                                  const WriterContext& context) {
      return Render(*shared->task_id, "task-id-extractor", record, context);
    };
  }
  auto resolver = MakeResolver<Record, QueueDestination>(
      [shared](
          const Record& record,
          const WriterContext& context) -> absl::StatusOr<QueueDestination> {
        absl::StatusOr<std::string> queue = shared->queue.Render(
            record, context.event_time.value_or(absl::InfinitePast()));
        // A record whose queue cannot be named is refused by the serializer
        // (routed per the failure handler); its failure names the template.
        return QueueDestination(shared->project, shared->location,
                                queue.ok() ? *queue : shared->queue.text());
      });
  return std::make_shared<cloudtasks::CloudTasksSink<Record>>(
      sink, std::move(resolver), std::move(serializer),
      MakeFailureHandlerFactory<cloudtasks::CloudTasksFailedElement>(
          *std::move(handler)));
}

const RegisterSink kCloudTasksSink("cloud-tasks", CloudTasksSink,
                                   {emulators::EmulatorKind::kCloudTasks});

}  // namespace
}  // namespace gcpstream::config
