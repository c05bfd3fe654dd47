// Every YAML example in docs/*.md is a pipeline file, or a part of one, that
// gcpstream builds as written: a documented example the loader refuses is a
// documentation bug this test catches (docs/cli.md's `sources:` example once
// used `subscription:`).

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "gcpstream/config/pipeline_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::config {
namespace {

namespace fs = std::filesystem;

constexpr char kSource[] = "source: {type: sample-orders, count: 1}\n";
constexpr char kFileSink[] = "sinks: [{type: file, directory: /tmp/unused}]\n";

struct Example {
  std::string where;  // docs/x.md, block N
  std::string yaml;
};

std::vector<Example> YamlBlocks() {
  std::vector<Example> examples;
  for (const auto& entry : fs::directory_iterator(GCPSTREAM_DOCS_DIR)) {
    if (entry.path().extension() != ".md") continue;
    std::ifstream in(entry.path());
    std::string line;
    std::string block;
    bool inside = false;
    int count = 0;
    while (std::getline(in, line)) {
      if (!inside && line == "```yaml") {
        inside = true;
        block.clear();
      } else if (inside && line == "```") {
        inside = false;
        examples.push_back({absl::StrCat(entry.path().filename().string(),
                                         " yaml block ", ++count),
                            block});
      } else if (inside) {
        absl::StrAppend(&block, line, "\n");
      }
    }
  }
  return examples;
}

std::string Indented(const std::string& text, const std::string& prefix) {
  return prefix +
         absl::StrReplaceAll(absl::StripSuffix(text, "\n"),
                             {{"\n", "\n" + prefix}}) +
         "\n";
}

// The example completed into a whole pipeline file, or empty when it is a
// fragment of options (e.g. a sink's write-method).
std::string AsPipeline(const std::string& yaml) {
  const bool has_source = absl::StrContains(yaml, "\nsource:") ||
                          absl::StartsWith(yaml, "source:") ||
                          absl::StrContains(yaml, "sources:");
  const bool has_sinks = absl::StrContains(yaml, "sinks:");
  if (has_source && has_sinks) return yaml;
  if (absl::StartsWith(yaml, "sinks:")) return kSource + yaml;
  if (absl::StartsWith(yaml, "sources:")) return yaml + kFileSink;
  if (absl::StartsWith(yaml, "transforms:") ||
      absl::StartsWith(yaml, "local:")) {
    return kSource + yaml + kFileSink;
  }
  if (absl::StartsWith(yaml, "- name:")) {
    return absl::StrCat(kSource, "sinks:\n", Indented(yaml, "  "));
  }
  if (absl::StartsWith(yaml, "failure-handler:")) {
    return absl::StrCat(kSource,
                        "sinks:\n  - type: pubsub\n    project: p\n"
                        "    topic: t\n",
                        Indented(yaml, "    "));
  }
  return "";
}

TEST(DocsExamplesTest, EveryPipelineExampleBuildsAsWritten) {
  const std::vector<Example> examples = YamlBlocks();
  int built = 0;
  for (const Example& example : examples) {
    const std::string pipeline = AsPipeline(example.yaml);
    if (pipeline.empty()) continue;
    absl::StatusOr<PipelineFile> file =
        ParsePipelineFile(pipeline, example.where);
    ASSERT_TRUE(file.ok()) << file.status() << "\n" << pipeline;
    auto built_pipeline = BuildPipeline(*file, ConnectorRegistry::Global());
    EXPECT_TRUE(built_pipeline.ok())
        << example.where << ": " << built_pipeline.status() << "\n"
        << pipeline;
    ++built;
  }
  // Most examples are pipelines or parts of one; the count guards against
  // a reader that stopped finding them.
  EXPECT_GE(built, 10) << "of " << examples.size() << " yaml blocks";
}

}  // namespace
}  // namespace gcpstream::config
