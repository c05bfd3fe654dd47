#include "gcpstream/config/pipeline_file.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/runtime/restart_strategy.h"

namespace gcpstream::config {
namespace {

enum class RestartKind { kNone, kFixedDelay, kExponentialBackoff };
inline constexpr EnumSpelling<RestartKind> kRestartKinds[] = {
    {"none", RestartKind::kNone},
    {"fixed-delay", RestartKind::kFixedDelay},
    {"exponential-backoff", RestartKind::kExponentialBackoff}};
inline constexpr EnumOption<RestartKind> kRestartKindOption("type",
                                                            kRestartKinds);

// Reads a value that may be absent, keeping `target` as is then.

absl::StatusOr<runtime::RestartStrategy> ParseRestart(OptionMap& map) {
  absl::StatusOr<std::optional<RestartKind>> kind =
      map.Enum(kRestartKindOption);
  if (!kind.ok()) return kind.status();
  int64_t attempts = 3;
  absl::Duration delay = absl::Seconds(1);
  absl::Duration max_delay = absl::Minutes(1);
  double multiplier = 2.0;
  for (absl::Status status :
       {AssignIfSet(map.Int("attempts", 0, 1'000'000), attempts),
        AssignIfSet(map.Duration("delay"), delay),
        AssignIfSet(map.Duration("max-delay"), max_delay),
        AssignIfSet(map.Double("multiplier"), multiplier),
        map.CheckNoUnknownKeys()}) {
    if (!status.ok()) return status;
  }
  runtime::RestartStrategy strategy;
  switch (kind->value_or(RestartKind::kNone)) {
    case RestartKind::kNone:
      strategy = runtime::RestartStrategy::None();
      break;
    case RestartKind::kFixedDelay:
      strategy = runtime::RestartStrategy::FixedDelay(
          static_cast<int>(attempts), delay);
      break;
    case RestartKind::kExponentialBackoff:
      strategy = runtime::RestartStrategy::ExponentialBackoff(
          static_cast<int>(attempts), delay, max_delay, multiplier);
      break;
  }
  if (absl::Status valid = strategy.Validate(); !valid.ok()) {
    return ConfigError(map.position(),
                       absl::StrCat(map.what(), ": ", valid.message()));
  }
  return strategy;
}

// A source's own keys, beside its connector's options.
absl::StatusOr<PipelineFile::Source> ReadSource(OptionMap options,
                                                std::string default_name) {
  PipelineFile::Source source{.name = std::move(default_name),
                              .options = std::move(options)};
  // Read from the kept map, so its factory does not see these keys as
  // unknown.
  OptionMap& map = source.options;
  absl::StatusOr<std::optional<std::string>> name = map.String("name");
  if (!name.ok()) return name.status();
  if (name->has_value()) source.name = **name;
  absl::StatusOr<std::optional<std::string>> event_time_field =
      map.String("event-time-field");
  if (!event_time_field.ok()) return event_time_field.status();
  if (event_time_field->has_value()) {
    absl::StatusOr<FieldPath> field = FieldPath::Parse(**event_time_field);
    if (!field.ok()) {
      return ConfigError(
          map.PositionOf("event-time-field"),
          absl::StrCat(map.what(), ": option 'event-time-field': ",
                       field.status().message()));
    }
    source.event_time_field = *std::move(field);
  }
  if (absl::Status status = AssignIfSet(map.Duration("max-out-of-orderness"),
                                        source.max_out_of_orderness);
      !status.ok()) {
    return status;
  }
  return source;
}

}  // namespace

absl::StatusOr<PipelineFile> ParsePipelineFile(absl::string_view text,
                                               const std::string& path) {
  YAML::Node root;
  try {  // yaml-cpp reports syntax errors only by exception.
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return ConfigError(SourcePosition{.file = path,
                                      .line = std::max(e.mark.line, 0) + 1,
                                      .column = std::max(e.mark.column, 0) + 1},
                       absl::StrCat("not valid YAML: ", e.msg));
  }
  absl::StatusOr<OptionMap> top = OptionMap::FromNode(root, path, "pipeline");
  if (!top.ok()) return top.status();
  runtime::PipelineOptions options;
  options.name = std::filesystem::path(path).stem().string();
  int64_t parallelism = 1;
  for (absl::Status status :
       {AssignIfSet(top->String("name"), options.name),
        AssignIfSet(top->Int("parallelism", 1, 1024), parallelism),
        AssignIfSet(top->Duration("checkpoint-interval"),
                    options.checkpoint_interval),
        AssignIfSet(top->String("checkpoint-directory"),
                    options.checkpoint_directory),
        AssignIfSet(top->Duration("checkpoint-timeout"),
                    options.checkpoint_timeout),
        AssignIfSet(top->Int("tolerable-checkpoint-failures", 0, 1'000'000),
                    options.tolerable_checkpoint_failures),
        AssignIfSet(top->Duration("shutdown-timeout"),
                    options.shutdown_timeout),
        AssignIfSet(top->Duration("health-checkpoint-timeout"),
                    options.health_checkpoint_timeout)}) {
    if (!status.ok()) return status;
  }
  absl::StatusOr<std::optional<OptionMap>> restart =
      top->Map("restart-strategy");
  if (!restart.ok()) return restart.status();
  if (restart->has_value()) {
    absl::StatusOr<runtime::RestartStrategy> strategy = ParseRestart(**restart);
    if (!strategy.ok()) return strategy.status();
    options.restart = *strategy;
  }
  absl::StatusOr<std::optional<OptionMap>> source = top->Map("source");
  if (!source.ok()) return source.status();
  absl::StatusOr<std::optional<std::vector<OptionMap>>> sources =
      top->MapList("sources");
  if (!sources.ok()) return sources.status();
  absl::StatusOr<std::optional<std::vector<OptionMap>>> sinks =
      top->MapList("sinks");
  if (!sinks.ok()) return sinks.status();
  absl::StatusOr<std::optional<std::vector<OptionMap>>> transform_maps =
      top->MapList("transforms");
  if (!transform_maps.ok()) return transform_maps.status();
  std::vector<Transform> transforms;
  for (OptionMap& map : transform_maps->value_or(std::vector<OptionMap>{})) {
    absl::StatusOr<Transform> transform = ReadTransform(map);
    if (!transform.ok()) return transform.status();
    transforms.push_back(*std::move(transform));
  }
  absl::StatusOr<std::optional<OptionMap>> local = top->Map("local");
  if (!local.ok()) return local.status();
  LocalResources local_resources;
  if (local->has_value()) {
    absl::StatusOr<LocalResources> read = ReadLocalResources(**local);
    if (!read.ok()) return read.status();
    local_resources = *std::move(read);
  }
  if (absl::Status unknown = top->CheckNoUnknownKeys(); !unknown.ok()) {
    return unknown;
  }
  if (source->has_value() == sources->has_value()) {
    return ConfigError(
        top->position(),
        source->has_value()
            ? "pipeline: give either 'source' or 'sources', not both"
            : "pipeline: 'source' is required (a mapping with a 'type' and "
              "its options), or 'sources' (a list of them, whose records are "
              "merged)");
  }
  if (sources->has_value() && (*sources)->empty()) {
    return ConfigError(top->PositionOf("sources"),
                       "pipeline: 'sources' needs at least one source");
  }
  if (!sinks->has_value() || (*sinks)->empty()) {
    return ConfigError(top->position(),
                       "pipeline: 'sinks' is required (a list of at least "
                       "one mapping with a 'type' and its options)");
  }
  PipelineFile file{.path = path,
                    .options = std::move(options),
                    .parallelism = static_cast<int>(parallelism),
                    .sources = {},
                    .transforms = std::move(transforms),
                    .sinks = {},
                    .local = std::move(local_resources)};
  const bool listed = sources->has_value();
  std::set<std::string> source_names;
  std::vector<OptionMap> source_maps;
  if (listed) {
    source_maps = **std::move(sources);
  } else {
    source_maps.push_back(**std::move(source));
  }
  for (OptionMap& map : source_maps) {
    absl::StatusOr<PipelineFile::Source> read = ReadSource(
        std::move(map),
        listed ? absl::StrCat("source-", file.sources.size() + 1) : "source");
    if (!read.ok()) return read.status();
    if (!source_names.insert(absl::AsciiStrToLower(read->name)).second) {
      return ConfigError(read->options.PositionOf("name"),
                         absl::StrCat("two sources are named '", read->name,
                                      "'; source names must be unique"));
    }
    file.sources.push_back(*std::move(read));
  }
  std::set<std::string> names;
  for (OptionMap& sink : **sinks) {
    absl::StatusOr<std::optional<std::string>> name = sink.String("name");
    if (!name.ok()) return name.status();
    std::string chosen =
        name->value_or(absl::StrCat("sink-", file.sinks.size() + 1));
    if (!names.insert(absl::AsciiStrToLower(chosen)).second) {
      return ConfigError(sink.PositionOf("name"),
                         absl::StrCat("two sinks are named '", chosen,
                                      "'; sink names must be unique"));
    }
    file.sinks.push_back(
        PipelineFile::Sink{.name = std::move(chosen), .options = sink});
  }
  return file;
}

std::optional<absl::Time> EventTimeOf(const Record& record,
                                      const FieldPath& field) {
  absl::StatusOr<json::JsonValue> value = field.Find(record);
  if (!value.ok()) return std::nullopt;
  switch (value->type()) {
    case json::JsonType::kInteger:
      return absl::FromUnixMillis(value->integer());
    case json::JsonType::kUnsigned:
      return absl::FromUnixMillis(
          static_cast<int64_t>(value->unsigned_integer()));
    case json::JsonType::kString:
      break;
    default:
      return std::nullopt;
  }
  std::string scratch;
  absl::Time time;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, value->string(scratch), &time,
                       &error)) {
    return std::nullopt;
  }
  return time;
}

absl::StatusOr<PipelineFile> LoadPipelineFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot read pipeline file '", path, "'"));
  }
  const std::streamoff size = in.tellg();
  if (size > kMaxPipelineFileBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("pipeline file '", path, "' is ", size,
                     " bytes; a pipeline file is at "
                     "most ",
                     kMaxPipelineFileBytes,
                     " bytes (1 MiB): records belong in a "
                     "source's input, not in the pipeline file"));
  }
  in.seekg(0);
  const std::string text((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  return ParsePipelineFile(text, path);
}

absl::StatusOr<std::unique_ptr<runtime::Pipeline>> BuildPipeline(
    PipelineFile& file, const ConnectorRegistry& registry) {
  std::vector<std::shared_ptr<runtime::Source<Record>>> sources;
  for (PipelineFile::Source& source : file.sources) {
    BuildEnvironment environment{.pipeline_name = file.options.name,
                                 .name = source.name};
    absl::StatusOr<std::shared_ptr<runtime::Source<Record>>> built =
        registry.BuildSource(source.options, environment);
    if (!built.ok()) return built.status();
    sources.push_back(*std::move(built));
  }
  std::vector<std::shared_ptr<runtime::Sink<Record>>> sinks;
  for (PipelineFile::Sink& sink : file.sinks) {
    BuildEnvironment environment{.pipeline_name = file.options.name,
                                 .name = sink.name};
    absl::StatusOr<std::shared_ptr<runtime::Sink<Record>>> built =
        registry.BuildSink(sink.options, environment);
    if (!built.ok()) return built.status();
    sinks.push_back(*std::move(built));
  }
  auto pipeline = std::make_unique<runtime::Pipeline>(file.options);
  std::vector<runtime::DataStream<Record>> streams;
  for (size_t i = 0; i < sources.size(); ++i) {
    runtime::WatermarkStrategy<Record> strategy;
    strategy.max_out_of_orderness = file.sources[i].max_out_of_orderness;
    if (file.sources[i].event_time_field.has_value()) {
      strategy.timestamp =
          [field = *file.sources[i].event_time_field](const Record& r) {
            return EventTimeOf(r, field);
          };
    }
    streams.push_back(pipeline->AddSource(
        std::move(sources[i]), file.parallelism, std::move(strategy)));
  }
  runtime::DataStream<Record> stream =
      streams.size() == 1
          ? streams.front()
          : streams.front().Union({streams.begin() + 1, streams.end()});
  for (const Transform& transform : file.transforms) {
    stream = transform.ApplyTo(std::move(stream));
  }
  for (auto& sink : sinks) stream.SinkTo(std::move(sink));
  return pipeline;
}

}  // namespace gcpstream::config
