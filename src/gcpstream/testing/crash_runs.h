#ifndef GCPSTREAM_TESTING_CRASH_RUNS_H_
#define GCPSTREAM_TESTING_CRASH_RUNS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace gcpstream::testing {

struct CrashRuns {
  // The pipeline program and its arguments; it checkpoints into
  // `checkpoint_dir` (which it is told through `args`).
  std::string program;
  std::vector<std::string> args;
  std::string checkpoint_dir;
  // Where each run's output is kept: <log_dir>/run-<n>.log.
  std::string log_dir;
  // SIGKILLs before the final run.
  int kills = 6;
  uint32_t seed = 0;
};

// What crash tests do: starts the program, SIGKILLs it after a random 300 to
// 900 ms, `kills` times (the last kill waits until a checkpoint exists, so
// the final run has one to resume from), then lets a final run finish.
// Returns the final run's output; an error when a run ended before it was
// killed or the final run failed, naming its log.
absl::StatusOr<std::string> RunWithRandomKills(const CrashRuns& runs);

}  // namespace gcpstream::testing

#endif  // GCPSTREAM_TESTING_CRASH_RUNS_H_
