// The pipeline the Spanner crash test kills and restarts: a rate-limited
// generator whose record i upserts row (i % keys) with Seq = i, keyed by row
// so that a row's updates keep their order, into a Spanner sink with
// frequent checkpoints. After any number of crashes and a final complete
// run, row k must hold the largest i with i % keys == k.
//
//   spanner_crash_pipeline --checkpoint-dir D --database projects/p/...
//                          --records N --keys K [--rate R]

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_split.h"
#include "gcpstream/spanner/spanner_sink.h"
#include "gcpstream/testing/sequence_pipeline.h"

namespace gcpstream::spanner {
namespace {

int Run(const std::string& checkpoint_dir, const std::string& database,
        int64_t records, int64_t keys, double rate) {
  std::vector<std::string> parts = absl::StrSplit(database, '/');
  if (parts.size() != 6) {
    std::cerr << "--database must be projects/P/instances/I/databases/D\n";
    return 2;
  }
  SpannerSinkOptions sink_options;
  sink_options.database = DatabaseDestination(parts[1], parts[3], parts[5]);
  sink_options.write_method = WriteMethod::kCommit;
  auto sink = std::make_shared<SpannerSink<int64_t>>(
      sink_options,
      [keys](const int64_t& i,
             const WriterContext&) -> absl::StatusOr<std::optional<Mutation>> {
        return Mutation::InsertOrUpdate("Counters")
            .Set("Id", Value::Int64(i % keys))
            .Set("Seq", Value::Int64(i));
      });
  return ::gcpstream::testing::RunSequencePipeline(
      {.name = "spanner-crash-test",
       .checkpoint_dir = checkpoint_dir,
       .records = records,
       .records_per_second = rate,
       .max_records_per_poll = 100},
      sink, [keys](const int64_t& i) { return i % keys; });
}

}  // namespace
}  // namespace gcpstream::spanner

int main(int argc, char** argv) {
  CLI::App app{"gcpstream Spanner crash-test pipeline"};
  std::string checkpoint_dir;
  std::string database;
  int64_t records = 20000;
  int64_t keys = 1000;
  double rate = 10000;
  app.add_option("--checkpoint-dir", checkpoint_dir)->required();
  app.add_option("--database", database)->required();
  app.add_option("--records", records);
  app.add_option("--keys", keys);
  app.add_option("--rate", rate, "records per second, 0 for unlimited");
  CLI11_PARSE(app, argc, argv);
  return gcpstream::spanner::Run(checkpoint_dir, database, records, keys, rate);
}
