// The pipeline the Bigtable crash test kills and restarts: a rate-limited
// generator whose record i sets cell (row i % keys, qualifier i / keys) to
// "i", with frequent checkpoints. With explicit timestamps (i ms) a replay
// rewrites the same version; with the writer's clock it may add one.
//
//   bigtable_crash_pipeline --checkpoint-dir D --table projects/p/.../tables/t
//                           --records N --keys K [--rate R]
//                           [--timestamps explicit|writer-clock]

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gcpstream/bigtable/bigtable_sink.h"
#include "gcpstream/testing/sequence_pipeline.h"

namespace gcpstream::bigtable {
namespace {

int Run(const std::string& checkpoint_dir, const std::string& table,
        int64_t records, int64_t keys, double rate, bool explicit_timestamps) {
  std::vector<std::string> parts = absl::StrSplit(table, '/');
  if (parts.size() != 6) {
    std::cerr << "--table must be projects/P/instances/I/tables/T\n";
    return 2;
  }
  BigtableSinkOptions sink_options;
  auto sink = std::make_shared<BigtableSink<int64_t>>(
      sink_options, TableDestination(parts[1], parts[3], parts[5]),
      [keys, explicit_timestamps](const int64_t& i, const WriterContext&)
          -> absl::StatusOr<std::optional<RowMutationEntry>> {
        RowMutationEntry entry(absl::StrCat("row-", i % keys));
        if (explicit_timestamps) {
          entry.SetCell("cf", absl::StrCat("c", i / keys), absl::StrCat(i),
                        i * 1000);
        } else {
          entry.SetCell("cf", absl::StrCat("c", i / keys), absl::StrCat(i));
        }
        return entry;
      });
  return ::gcpstream::testing::RunSequencePipeline(
      {.name = "bigtable-crash-test",
       .checkpoint_dir = checkpoint_dir,
       .records = records,
       .records_per_second = rate,
       .max_records_per_poll = 100},
      sink);
}

}  // namespace
}  // namespace gcpstream::bigtable

int main(int argc, char** argv) {
  CLI::App app{"gcpstream Bigtable crash-test pipeline"};
  std::string checkpoint_dir;
  std::string table;
  int64_t records = 20000;
  int64_t keys = 1000;
  double rate = 10000;
  std::string timestamps = "explicit";
  app.add_option("--checkpoint-dir", checkpoint_dir)->required();
  app.add_option("--table", table)->required();
  app.add_option("--records", records);
  app.add_option("--keys", keys);
  app.add_option("--rate", rate, "records per second, 0 for unlimited");
  app.add_option("--timestamps", timestamps)
      ->check(CLI::IsMember({"explicit", "writer-clock"}));
  CLI11_PARSE(app, argc, argv);
  return gcpstream::bigtable::Run(checkpoint_dir, table, records, keys, rate,
                                  timestamps == "explicit");
}
