// The pipeline the BigQuery crash test kills and restarts: a rate-limited
// generator whose record i becomes row {id: i} of table part_<i % 3> in the
// given dataset, with a checkpoint every 100 ms, through the write method
// under test.
//
//   bigquery_crash_pipeline --checkpoint-dir D --project P --dataset DS
//                           --records N [--rate R]
//                           --write-method storage-api-at-least-once|...

#include <iostream>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "gcpstream/bigquery/bigquery_sink.h"
#include "gcpstream/testing/sequence_pipeline.h"

namespace gcpstream::bigquery {
namespace {

// Row {id: i}, encoded as a JSON record would be.
class IdRows final : public RowSerializer<int64_t> {
 public:
  absl::StatusOr<std::shared_ptr<const RowFormat>> FormatFor(
      const TableSchema& schema,
      const RowFormatOptions& options) const override {
    return json_->FormatFor(schema, options);
  }
  absl::StatusOr<bool> Encode(const int64_t& id, const RowFormat& format,
                              const WriterContext& context,
                              std::string& row) const override {
    return json_->Encode(nlohmann::json{{"id", id}}, format, context, row);
  }

 private:
  std::shared_ptr<const RowSerializer<nlohmann::json>> json_ = JsonRows();
};

int Run(const std::string& checkpoint_dir, const std::string& project,
        const std::string& dataset, int64_t records, double rate,
        WriteMethod method, const std::string& staging_path) {
  BigQuerySinkOptions options;
  options.name = "bq";
  options.write_method = method;
  options.staging_path = staging_path;
  options.max_batch_rows = 200;
  // Two writers with three tables each: turns for the append connections.
  options.max_append_connections = 2;
  options.table.schema = TableSchema{{{.name = "id",
                                       .type = FieldType::kInt64,
                                       .mode = FieldMode::kRequired}}};
  auto sink = std::make_shared<BigQuerySink<int64_t>>(
      options,
      MakeResolver<int64_t, TableDestination>(
          [project, dataset](const int64_t& i, const WriterContext&)
              -> absl::StatusOr<TableDestination> {
            return TableDestination(project, dataset,
                                    absl::StrCat("part_", i % 3));
          }),
      std::make_shared<IdRows>());
  return ::gcpstream::testing::RunSequencePipeline(
      {.name = "bigquery-crash-test",
       .checkpoint_dir = checkpoint_dir,
       .records = records,
       .records_per_second = rate,
       .max_records_per_poll = 100},
      sink);
}

}  // namespace
}  // namespace gcpstream::bigquery

int main(int argc, char** argv) {
  CLI::App app{"gcpstream BigQuery crash-test pipeline"};
  std::string checkpoint_dir;
  std::string project;
  std::string dataset;
  int64_t records = 6000;
  double rate = 2000;
  std::string method;
  std::string staging_path;
  app.add_option("--checkpoint-dir", checkpoint_dir)->required();
  app.add_option("--project", project)->required();
  app.add_option("--dataset", dataset)->required();
  app.add_option("--records", records);
  app.add_option("--rate", rate, "records per second, 0 for unlimited");
  app.add_option("--write-method", method)->required();
  app.add_option("--staging-path", staging_path, "file-loads: gs://B/P");
  CLI11_PARSE(app, argc, argv);
  absl::StatusOr<gcpstream::bigquery::WriteMethod> write_method =
      gcpstream::bigquery::kWriteMethodOption.Parse(method);
  if (!write_method.ok()) {
    std::cerr << write_method.status() << "\n";
    return 2;
  }
  return gcpstream::bigquery::Run(checkpoint_dir, project, dataset, records,
                                  rate, *write_method, staging_path);
}
