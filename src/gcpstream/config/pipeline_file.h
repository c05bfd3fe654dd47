#ifndef GCPSTREAM_CONFIG_PIPELINE_FILE_H_
#define GCPSTREAM_CONFIG_PIPELINE_FILE_H_

#include <ios>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "gcpstream/config/connector_registry.h"
#include "gcpstream/config/local_resources.h"
#include "gcpstream/config/option_map.h"
#include "gcpstream/config/transform.h"
#include "gcpstream/runtime/pipeline.h"
#include "gcpstream/runtime/pipeline_options.h"

namespace gcpstream::config {

// A pipeline file after its own keys were read; the connectors' mappings
// are kept for their factories. See docs/pipeline-yaml.md.
struct PipelineFile {
  std::string path;
  runtime::PipelineOptions options;
  int parallelism = 1;
  struct Source {
    std::string name;
    OptionMap options;
    // Its `event-time-field` (RFC 3339 text or epoch milliseconds): each
    // record's event time, for templates and watermarks; else the time the
    // source gives (a Pub/Sub message's publish time) or none.
    std::optional<FieldPath> event_time_field = std::nullopt;
    absl::Duration max_out_of_orderness = absl::ZeroDuration();
  };
  // `source:`, or the items of `sources:` (their records are unioned).
  std::vector<Source> sources;
  std::vector<Transform> transforms;
  struct Sink {
    std::string name;
    OptionMap options;
  };
  std::vector<Sink> sinks;
  // The `local:` section, for `run --local` (empty when absent).
  LocalResources local;
};

// Parses `text` as the pipeline file `path` (used in error positions).
// Errors, YAML syntax errors included, carry file:line:column.
absl::StatusOr<PipelineFile> ParsePipelineFile(absl::string_view text,
                                               const std::string& path);
// The largest pipeline file LoadPipelineFile reads: a pipeline is a page of
// options, and a file of many megabytes is a mistake (data written where
// options belong), refused before it is parsed.
inline constexpr std::streamoff kMaxPipelineFileBytes = 1 << 20;

absl::StatusOr<PipelineFile> LoadPipelineFile(const std::string& path);

// A record's event time from `field`: RFC 3339 text or whole epoch
// milliseconds; nullopt when missing or neither.
std::optional<absl::Time> EventTimeOf(const Record& record,
                                      const FieldPath& field);

// Builds every connector through `registry` (so every option is checked)
// and wires the source to each sink. Nothing runs and, for the connectors
// that check only at open, nothing is contacted: `validate` is this.
absl::StatusOr<std::unique_ptr<runtime::Pipeline>> BuildPipeline(
    PipelineFile& file, const ConnectorRegistry& registry);

}  // namespace gcpstream::config

#endif  // GCPSTREAM_CONFIG_PIPELINE_FILE_H_
