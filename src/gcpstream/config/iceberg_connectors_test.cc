// `type: iceberg-add-files` in a pipeline file: records name Parquet files,
// each checkpoint adds them, refused files and records reach the
// dead-letter queue, and pyiceberg reads the table.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "gcpstream/config/connector_registry.h"
#include "gcpstream/config/pipeline_file.h"
#include "gcpstream/iceberg/io/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gcpstream::config {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using Json = nlohmann::json;

const std::string kDir =
    GCPSTREAM_TEST_OUTPUT_ROOT "/iceberg_connectors_output";

class IcebergConnectorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::remove_all(kDir + "/run");
    fs::create_directories(kDir + "/run/in");
    ASSERT_EQ(
        std::system(
            absl::StrCat(GCPSTREAM_PYTHON, " ", GCPSTREAM_ICEBERG_TESTDATA,
                         "/write_add_files_fixtures.py ", kDir, "/fixtures")
                .c_str()),
        0);
  }

  static std::string Fixture(const std::string& name) {
    return absl::StrCat(kDir, "/fixtures/", name);
  }

  static std::string Yaml(const std::string& sink_options) {
    return absl::StrCat(
        "name: register\n"
        "checkpoint-interval: 50ms\n"
        "source: {type: json-lines, directory: ",
        kDir,
        "/run/in}\n"
        "sinks:\n"
        "  - name: lake\n"
        "    type: iceberg-add-files\n"
        "    catalog: ",
        kDir,
        "/run/warehouse\n"
        "    table: db.orders\n",
        sink_options);
  }

  static absl::Status Run(const std::string& yaml) {
    absl::StatusOr<PipelineFile> file = ParsePipelineFile(yaml, "p.yaml");
    if (!file.ok()) return file.status();
    auto pipeline = BuildPipeline(*file, ConnectorRegistry::Global());
    if (!pipeline.ok()) return pipeline.status();
    return (*pipeline)->Run().status();
  }
};

TEST_F(IcebergConnectorsTest, RegistersNamedFilesAndRoutesTheRest) {
  {
    std::ofstream in(kDir + "/run/in/files.jsonl");
    in << Json{{"path", Fixture("orders_a.parquet")}}.dump() << "\n"
       << Json(Fixture("orders_b.parquet")).dump() << "\n"
       << Json{{"path", Fixture("notes.txt")}}.dump() << "\n"
       << Json{{"file", 3}}.dump() << "\n"
       << Json{{"path", Fixture("orders_a.parquet")}}.dump() << "\n";
  }
  const absl::Status run = Run(
      Yaml(absl::StrCat("    schema-evolution-options: [allow-field-addition]\n"
                        "    failure-handler:\n"
                        "      type: dead-letter-queue\n"
                        "      queue: {type: file, directory: ",
                        kDir, "/run/dlq}\n")));
  ASSERT_TRUE(run.ok()) << run;

  const std::string checked = iceberg::testing::CommandOutput(absl::StrCat(
      GCPSTREAM_PYTHON, " ", GCPSTREAM_ICEBERG_TESTDATA,
      "/check_crashed_table.py ", kDir, "/run/warehouse/db/orders"));
  const Json table = Json::parse(checked, nullptr, false);
  ASSERT_FALSE(table.is_discarded()) << checked;
  EXPECT_EQ(table["files"].size(), 2u) << checked;
  EXPECT_EQ(table["duplicates"], 0);
  EXPECT_EQ(table["rows"], 6);

  std::vector<std::string> dead;
  for (const auto& entry : fs::directory_iterator(kDir + "/run/dlq")) {
    std::ifstream lines(entry.path());
    for (std::string line; std::getline(lines, line);) dead.push_back(line);
  }
  ASSERT_EQ(dead.size(), 2u);
  const std::string all = dead[0] + dead[1];
  EXPECT_THAT(all, HasSubstr("only Parquet files"));
  EXPECT_THAT(all, HasSubstr("names no file"));
}

TEST_F(IcebergConnectorsTest, WrongOptionsAreRefusedWhenTheFileIsBuilt) {
  EXPECT_THAT(Run(Yaml("    dry-run: true\n")).message(), HasSubstr("dry-run"));
  EXPECT_THAT(
      Run(Yaml("    schema-evolution-options: [allow-all]\n")).message(),
      HasSubstr("allow-field-addition"));
  EXPECT_THAT(Run(Yaml("    required-columns: [id]\n")).message(),
              HasSubstr("required-columns applies only with schema evolution"));
  EXPECT_THAT(
      Run(absl::StrCat("source: {type: json-lines, directory: ", kDir,
                       "/run/in}\nsinks:\n  - {type: iceberg-add-files, "
                       "catalog: /tmp/w, table: orders}\n"))
          .message(),
      HasSubstr("needs a namespace"));
}

}  // namespace
}  // namespace gcpstream::config
