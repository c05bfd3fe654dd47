// The gcpstream command: runs pipelines described in YAML files.
//
//   gcpstream validate PIPELINE.yaml
//   gcpstream run PIPELINE.yaml
//   gcpstream --version
//
// See docs/cli.md. Exit codes: 0 done, 1 the job failed, 2 the file or the
// command line is wrong (nothing was started).

#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "CLI/CLI.hpp"
#include "gcpstream/config/connector_registry.h"
#include "gcpstream/config/pipeline_file.h"

namespace gcpstream::cli {

constexpr int kJobFailed = 1;
constexpr int kBadConfiguration = 2;

namespace {

absl::StatusOr<std::unique_ptr<runtime::Pipeline>> Load(
    const std::string& path) {
  absl::StatusOr<config::PipelineFile> file = config::LoadPipelineFile(path);
  if (!file.ok()) return file.status();
  return config::BuildPipeline(*file, config::ConnectorRegistry::Global());
}

int Validate(const std::string& path) {
  absl::StatusOr<std::unique_ptr<runtime::Pipeline>> pipeline = Load(path);
  if (!pipeline.ok()) {
    std::cerr << "gcpstream: " << pipeline.status().message() << "\n";
    return kBadConfiguration;
  }
  std::cout << path << ": valid\n";
  return 0;
}

// Stops the pipeline on SIGINT or SIGTERM (an unbounded source runs until
// then); a second signal exits at once.
void StopOnSignal(runtime::Pipeline& pipeline) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread([&pipeline, signals] {
    int signal = 0;
    sigwait(&signals, &signal);
    std::cerr << "gcpstream: stopping (signal again to exit at once)\n";
    pipeline.Stop();
    sigwait(&signals, &signal);
    std::_Exit(128 + signal);
  }).detach();
}

int Run(const std::string& path) {
  absl::StatusOr<std::unique_ptr<runtime::Pipeline>> pipeline = Load(path);
  if (!pipeline.ok()) {
    std::cerr << "gcpstream: " << pipeline.status().message() << "\n";
    return kBadConfiguration;
  }
  StopOnSignal(**pipeline);
  absl::StatusOr<runtime::JobSummary> summary = (*pipeline)->Run();
  if (!summary.ok()) {
    std::cerr << "gcpstream: pipeline '" << (*pipeline)->options().name
              << "' failed for good (its restart strategy gave up): "
              << summary.status().message() << "\n";
    return kJobFailed;
  }
  std::cout << "gcpstream: pipeline '" << (*pipeline)->options().name
            << "' finished: " << summary->checkpoints_completed
            << " checkpoints, " << summary->restarts << " restarts\n";
  return 0;
}

}  // namespace
}  // namespace gcpstream::cli

int main(int argc, char** argv) {
  CLI::App app{"gcpstream: streaming pipelines into Google Cloud, from YAML"};
  app.set_version_flag("--version", GCPSTREAM_VERSION);
  app.require_subcommand(1);
  std::string path;
  CLI::App* validate = app.add_subcommand(
      "validate",
      "check a pipeline file and build its connectors, run nothing");
  validate->add_option("pipeline", path, "the pipeline file")->required();
  CLI::App* run =
      app.add_subcommand("run",
                         "run a pipeline until its input ends or it "
                         "is stopped (Ctrl-C)");
  run->add_option("pipeline", path, "the pipeline file")->required();
  try {  // CLI11 reports command-line errors only by exception.
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : gcpstream::cli::kBadConfiguration;
  }
  if (validate->parsed()) return gcpstream::cli::Validate(path);
  return gcpstream::cli::Run(path);
}
