// Every connector's option table against its docs page and pipeline files:
// each documented option is in the table (and so settable), each table
// option is documented with the default the table states, each one can be
// set from a pipeline file, and old spellings still work.

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gcpstream/bigquery/bigquery_sink_options.h"
#include "gcpstream/bigtable/bigtable_sink_options.h"
#include "gcpstream/cloudtasks/cloudtasks_sink_options.h"
#include "gcpstream/config/pipeline_file.h"
#include "gcpstream/pubsub/pubsub_dead_letter_queue.h"
#include "gcpstream/pubsub/pubsub_sink_options.h"
#include "gcpstream/spanner/spanner_sink_options.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::config {
namespace {

using ::testing::HasSubstr;

// One row of a docs options table: its keys (backticked, comma-separated in
// the first column) and its Default column.
struct DocRow {
  std::vector<std::string> keys;
  std::string default_text;
};

// The first "| Option | Default | Meaning |" table after `heading`.
std::vector<DocRow> DocsOptions(const std::string& page,
                                const std::string& heading) {
  std::ifstream in(std::string(GCPSTREAM_DOCS_DIR) + "/" + page);
  EXPECT_TRUE(in.good()) << page;
  std::vector<DocRow> rows;
  std::string line;
  bool in_section = false;
  bool in_table = false;
  while (std::getline(in, line)) {
    if (!in_section) {
      in_section = line == heading;
      continue;
    }
    if (!in_table) {
      in_table = absl::StartsWith(line, "| Option | Default |");
      continue;
    }
    if (absl::StartsWith(line, "|---")) continue;
    if (!absl::StartsWith(line, "|")) break;
    std::vector<std::string> cells = absl::StrSplit(line, '|');
    if (cells.size() < 4) continue;
    DocRow row;
    for (absl::string_view key : absl::StrSplit(cells[1], ',')) {
      key = absl::StripAsciiWhitespace(key);
      if (absl::ConsumePrefix(&key, "`") && absl::ConsumeSuffix(&key, "`")) {
        row.keys.emplace_back(key);
      }
    }
    row.default_text = std::string(absl::StripAsciiWhitespace(cells[2]));
    rows.push_back(std::move(row));
  }
  EXPECT_FALSE(rows.empty())
      << "no options table under '" << heading << "' in " << page;
  return rows;
}

// The table's keys and the keys its factory reads itself (destination,
// mapping) must be exactly the documented ones; a one-key row states the
// table's default.
template <typename O>
void ExpectDocumented(const connector::OptionTable<O>& table,
                      const std::vector<std::string>& factory_keys,
                      const std::string& page, const std::string& heading) {
  std::set<std::string> documented;
  for (const DocRow& row : DocsOptions(page, heading)) {
    for (const std::string& key : row.keys) documented.insert(key);
    if (row.keys.size() != 1) continue;
    for (const auto& field : table.fields()) {
      if (field.key == row.keys[0]) {
        EXPECT_EQ(row.default_text, field.default_text)
            << page << ": the documented default of '" << field.key << "'";
      }
    }
  }
  std::set<std::string> settable(factory_keys.begin(), factory_keys.end());
  for (const auto& field : table.fields()) settable.insert(field.key);
  EXPECT_EQ(documented, settable)
      << page << " (" << heading
      << ") documents: " << absl::StrJoin(documented, ", ")
      << "\nthe table and factory set: " << absl::StrJoin(settable, ", ");
}

template <typename O>
std::string EveryOption(const connector::OptionTable<O>& table,
                        const std::string& indent,
                        const std::set<std::string>& except = {}) {
  std::string yaml;
  for (const auto& field : table.fields()) {
    if (except.contains(field.key)) continue;
    absl::StrAppend(&yaml, indent, field.key, ": ", field.example, "\n");
  }
  return yaml;
}

absl::Status Build(const std::string& sink_yaml) {
  absl::StatusOr<PipelineFile> file = ParsePipelineFile(
      absl::StrCat("source: {type: json-lines, paths: [a.jsonl]}\n"
                   "sinks:\n",
                   sink_yaml),
      "p.yaml");
  if (!file.ok()) return file.status();
  return BuildPipeline(*file, ConnectorRegistry::Global()).status();
}

constexpr char kPubSubSink[] =
    "  - type: pubsub\n"
    "    project: p\n"
    "    topic: t\n";
constexpr char kSpannerSink[] =
    "  - type: spanner\n"
    "    project: p\n"
    "    instance: i\n"
    "    database: d\n"
    "    table: T\n"
    "    columns: {Id: id}\n";
constexpr char kBigtableSink[] =
    "  - type: bigtable\n"
    "    project: p\n"
    "    instance: i\n"
    "    table: t\n"
    "    row-key: '{id}'\n"
    "    family: cf\n"
    "    columns: {q: id}\n";
constexpr char kBigQuerySink[] =
    "  - type: bigquery\n"
    "    project: p\n"
    "    dataset: d\n"
    "    table: t\n"
    "    schema:\n"
    "      - {name: ts, type: TIMESTAMP}\n"
    "      - {name: region, type: STRING}\n";
constexpr char kCloudTasksSink[] =
    "  - type: cloud-tasks\n"
    "    project: p\n"
    "    location: l\n"
    "    queue: q\n"
    "    url: 'https://h/{id}'\n";
constexpr char kPubSubQueue[] =
    "    failure-handler:\n"
    "      type: dead-letter-queue\n"
    "      queue:\n"
    "        type: pubsub\n"
    "        project: p\n"
    "        topic: dead\n";

TEST(OptionTablesTest, PubSubSinkOptionsAreTheDocumentedOnes) {
  ExpectDocumented(pubsub::PubSubSinkOptionTable(), {}, "pubsub.md",
                   "### Options");
}

TEST(OptionTablesTest, PubSubDeadLetterQueueOptionsAreTheDocumentedOnes) {
  ExpectDocumented(pubsub::PubSubDeadLetterQueueOptionTable(),
                   {"project", "topic"}, "pubsub.md",
                   "## Dead-letter queue (`pubsub::PubSubDeadLetterQueue`)");
}

TEST(OptionTablesTest, SpannerSinkOptionsAreTheDocumentedOnes) {
  ExpectDocumented(spanner::SpannerSinkOptionTable(),
                   {"project", "instance", "database"}, "spanner.md",
                   "## Options");
}

TEST(OptionTablesTest, BigtableSinkOptionsAreTheDocumentedOnes) {
  ExpectDocumented(bigtable::BigtableSinkOptionTable(), {"project", "instance"},
                   "bigtable.md", "## Options");
}

TEST(OptionTablesTest, EveryBigtableOptionIsSettableInAPipelineFile) {
  absl::Status built = Build(absl::StrCat(
      kBigtableSink, EveryOption(bigtable::BigtableSinkOptionTable(), "    ")));
  EXPECT_TRUE(built.ok()) << built;
}

TEST(OptionTablesTest, BigQuerySinkOptionsAreTheDocumentedOnes) {
  ExpectDocumented(bigquery::BigQuerySinkOptionTable(),
                   {"project", "dataset", "table", "schema"}, "bigquery.md",
                   "## Options");
}

// The file-loads options go with write-method file-loads, and CDC with the
// default stream: one pipeline each.
TEST(OptionTablesTest, EveryBigQueryOptionIsSettableInAPipelineFile) {
  const std::set<std::string> file_loads = {bigquery::kStagingPathKey,
                                            bigquery::kMaxStagingFileBytesKey,
                                            bigquery::kLoadJobTimeoutKey};
  absl::Status built = Build(absl::StrCat(
      kBigQuerySink,
      EveryOption(bigquery::BigQuerySinkOptionTable(), "    ", file_loads)));
  EXPECT_TRUE(built.ok()) << built;
  std::set<std::string> others;
  const auto table = bigquery::BigQuerySinkOptionTable();
  for (const auto& field : table.fields()) {
    if (!file_loads.contains(field.key)) others.insert(field.key);
  }
  built = Build(absl::StrCat(kBigQuerySink, "    write-method: file-loads\n",
                             EveryOption(table, "    ", others)));
  EXPECT_TRUE(built.ok()) << built;
}

TEST(OptionTablesTest, CloudTasksSinkOptionsAreTheDocumentedOnes) {
  ExpectDocumented(cloudtasks::CloudTasksSinkOptionTable(),
                   {"project", "location"}, "cloudtasks.md", "## Options");
}

TEST(OptionTablesTest, EveryCloudTasksOptionIsSettableInAPipelineFile) {
  absl::Status built = Build(absl::StrCat(
      kCloudTasksSink,
      EveryOption(cloudtasks::CloudTasksSinkOptionTable(), "    ")));
  EXPECT_TRUE(built.ok()) << built;
}

TEST(OptionTablesTest, EveryPubSubOptionIsSettableInAPipelineFile) {
  absl::Status built = Build(absl::StrCat(
      kPubSubSink, EveryOption(pubsub::PubSubSinkOptionTable(), "    "),
      kPubSubQueue,
      EveryOption(pubsub::PubSubDeadLetterQueueOptionTable(), "        ")));
  EXPECT_TRUE(built.ok()) << built;
}

TEST(OptionTablesTest, EverySpannerOptionIsSettableInAPipelineFile) {
  absl::Status built = Build(absl::StrCat(
      kSpannerSink, EveryOption(spanner::SpannerSinkOptionTable(), "    ")));
  EXPECT_TRUE(built.ok()) << built;
}

TEST(OptionTablesTest, OldSpellingsAreAcceptedAlone) {
  EXPECT_TRUE(Build(absl::StrCat(kPubSubSink,
                                 "    batch-max-messages: 10\n"
                                 "    batch-max-bytes: 1000\n"
                                 "    batch-max-delay: 5ms\n",
                                 kPubSubQueue, "        max-outstanding: 0\n"))
                  .ok());
  EXPECT_TRUE(Build("  - type: spanner\n"
                    "    database: projects/p/instances/i/databases/d\n"
                    "    table: T\n"
                    "    columns: {Id: id}\n")
                  .ok());
}

TEST(OptionTablesTest, AnOldSpellingBesideItsNewOneIsAnError) {
  absl::Status both = Build(absl::StrCat(kPubSubSink,
                                         "    batch-max-messages: 10\n"
                                         "    max-batch-messages: 20\n"));
  EXPECT_THAT(both.message(), HasSubstr("p.yaml:"));
  EXPECT_THAT(both.message(),
              HasSubstr("'batch-max-messages' is the old spelling of "
                        "'max-batch-messages'"));
  absl::Status database = Build(
      "  - type: spanner\n"
      "    project: p\n"
      "    database: projects/p/instances/i/databases/d\n"
      "    table: T\n"
      "    columns: {Id: id}\n");
  EXPECT_THAT(database.message(), HasSubstr("option 'project' is set"));
}

TEST(OptionTablesTest, AValueOutOfRangeNamesTheKeyAndItsPlace) {
  absl::Status refused =
      Build(absl::StrCat(kPubSubSink, "    max-batch-messages: 1001\n"));
  EXPECT_THAT(refused.message(), HasSubstr("p.yaml:6:"));
  EXPECT_THAT(refused.message(), HasSubstr("max-batch-messages"));
  absl::Status retry =
      Build(absl::StrCat(kSpannerSink, "    retry-backoff-multiplier: 0.5\n"));
  EXPECT_THAT(retry.message(), HasSubstr("retry-backoff-multiplier"));
  absl::Status spelled =
      Build(absl::StrCat(kSpannerSink, "    write-method: batchwrite\n"));
  EXPECT_THAT(spelled.message(), HasSubstr("batch-write"));
}

TEST(OptionTablesTest, ASpannerDatabaseNeedsItsProjectAndInstance) {
  absl::Status missing = Build(
      "  - type: spanner\n"
      "    project: p\n"
      "    database: d\n"
      "    table: T\n"
      "    columns: {Id: id}\n");
  EXPECT_THAT(missing.message(), HasSubstr("'instance'"));
}

}  // namespace
}  // namespace gcpstream::config
