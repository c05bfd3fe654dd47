// The local file connectors for pipeline files: `type: json-lines` (source)
// and `type: file` (sink, one JSON value per line). See
// docs/pipeline-yaml.md.

#include <memory>
#include <string>

#include "gcpstream/config/connector_registry.h"
#include "gcpstream/runtime/connectors/file_sink.h"
#include "gcpstream/runtime/connectors/json_lines_source.h"

namespace gcpstream::config {
namespace {

absl::StatusOr<std::shared_ptr<runtime::Source<Record>>> JsonLinesSource(
    OptionMap& options, const BuildEnvironment& environment) {
  runtime::JsonLinesSourceOptions source;
  absl::StatusOr<std::optional<std::vector<std::string>>> paths =
      options.StringList("paths");
  if (!paths.ok()) return paths.status();
  if (paths->has_value()) source.files.paths = **paths;
  for (absl::Status status :
       {AssignIfSet(options.String("directory"), source.files.directory),
        AssignIfSet(options.String("suffix"), source.files.suffix),
        AssignIfSet(options.Int("max-lines-per-poll", 1, 1'000'000),
                    source.files.max_lines_per_poll),
        AssignIfSet(options.Int("max-line-bytes", 1, int64_t{1} << 30),
                    source.files.max_line_bytes),
        AssignIfSet(options.Enum(runtime::kMalformedLinePolicyOption),
                    source.malformed_line_policy)}) {
    if (!status.ok()) return status;
  }
  auto built = runtime::JsonLinesSource::Create(environment.name, source);
  if (!built.ok()) {
    return ConfigError(
        options.position(),
        absl::StrCat(options.what(), ": ", built.status().message()));
  }
  return std::shared_ptr<runtime::Source<Record>>(*std::move(built));
}

absl::StatusOr<std::shared_ptr<runtime::Sink<Record>>> FileSink(
    OptionMap& options, const BuildEnvironment& environment) {
  runtime::FileSinkOptions sink;
  sink.extension = "jsonl";
  absl::StatusOr<std::string> directory = options.RequiredString("directory");
  if (!directory.ok()) return directory.status();
  sink.directory = *directory;
  for (absl::Status status :
       {AssignIfSet(options.String("extension"), sink.extension),
        AssignIfSet(options.Enum(runtime::kFileSinkDeliveryOption),
                    sink.delivery),
        AssignIfSet(options.Int("max-file-bytes", 0), sink.max_file_bytes)}) {
    if (!status.ok()) return status;
  }
  auto built = runtime::FileSink<Record>::Create(
      environment.name,
      [](const Record& record) { return record.CompactText(); }, sink);
  if (!built.ok()) {
    return ConfigError(
        options.position(),
        absl::StrCat(options.what(), ": ", built.status().message()));
  }
  return std::shared_ptr<runtime::Sink<Record>>(*std::move(built));
}

const RegisterSource kJsonLines("json-lines", JsonLinesSource);
const RegisterSink kFile("file", FileSink);

}  // namespace
}  // namespace gcpstream::config
