// The gcpstream command: runs pipelines described in YAML files.
//
//   gcpstream validate PIPELINE.yaml
//   gcpstream run [--local] PIPELINE.yaml
//   gcpstream emulators exec|start|env|status|stop
//   gcpstream iceberg add-files --catalog DIR --table NS.NAME [PATHS...]
//   gcpstream --version
//
// See docs/cli.md. Exit codes: 0 done, 1 the job failed, 2 the file or the
// command line is wrong (nothing was started).

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gcpstream/cli/metrics_server.h"
#include "gcpstream/cli/metrics_text.h"
#include "gcpstream/cli/progress_reporter.h"
#include "gcpstream/config/connector_registry.h"
#include "gcpstream/config/failure_handler_config.h"
#include "gcpstream/config/local_files_check.h"
#include "gcpstream/config/pipeline_file.h"
#include "gcpstream/emulators/emulator_set.h"
#include "gcpstream/emulators/emulators_command.h"
#include "gcpstream/iceberg/add_files/add_files_command.h"
#include "spdlog/cfg/env.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

namespace gcpstream::cli {

constexpr int kJobFailed = 1;
constexpr int kBadConfiguration = 2;

namespace {

// Builds the pipeline, then checks the local files it names, so that
// `validate` refuses what `run` would refuse only after reading data.
absl::StatusOr<std::unique_ptr<runtime::Pipeline>> Build(
    config::PipelineFile& file) {
  absl::StatusOr<std::unique_ptr<runtime::Pipeline>> pipeline =
      config::BuildPipeline(file, config::ConnectorRegistry::Global());
  if (!pipeline.ok()) return pipeline;
  if (absl::Status checked = config::CheckLocalFiles(file); !checked.ok()) {
    return checked;
  }
  return pipeline;
}

int Validate(const std::string& path) {
  absl::StatusOr<config::PipelineFile> file = config::LoadPipelineFile(path);
  absl::Status status = file.status();
  if (file.ok()) status = Build(*file).status();
  if (!status.ok()) {
    std::cerr << "gcpstream: " << status.message() << "\n";
    return kBadConfiguration;
  }
  std::cout << path << ": valid\n";
  return 0;
}

// The first SIGINT or SIGTERM stops the pipeline with a final checkpoint
// (within the file's shutdown-timeout, else at once); a second exits at
// once, as Kubernetes' SIGKILL would after the grace period.
void StopOnSignal(runtime::Pipeline& pipeline) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread([&pipeline, signals] {
    int signal = 0;
    sigwait(&signals, &signal);
    std::cerr << "gcpstream: stopping with a final checkpoint (within "
              << absl::FormatDuration(pipeline.options().shutdown_timeout)
              << "; signal again to exit at once)\n";
    pipeline.StopWithCheckpoint();
    sigwait(&signals, &signal);
    std::_Exit(128 + signal);
  }).detach();
}

std::string HowItEnded(const runtime::JobSummary& summary) {
  if (summary.stopped_with_checkpoint) {
    return "stopped after a final checkpoint (nothing to replay)";
  }
  if (summary.stopped) {
    return "stopped without a final checkpoint (a restart replays from the "
           "last one)";
  }
  return "finished";
}

// What each source and sink did, from the pipeline's metrics, and where a
// sink's dead letters went.
void PrintSummary(config::PipelineFile& file, runtime::Pipeline& pipeline) {
  const std::string text = pipeline.metrics().ExportPrometheusText();
  for (size_t i = 0; i < file.sources.size(); ++i) {
    std::cout << "  source " << file.sources[i].name << ": "
              << CountsOfSource(text, file.sources[i].name, static_cast<int>(i))
                     .ToString()
              << "\n";
  }
  for (size_t i = 0; i < file.sinks.size(); ++i) {
    const SinkCounts counts =
        CountsOfSink(text, file.sinks[i].name, static_cast<int>(i));
    std::cout << "  sink " << file.sinks[i].name << ": " << counts.ToString();
    // The file was read once to build the pipeline: this cannot fail.
    absl::StatusOr<config::FailureHandlerSpec> handler =
        config::ReadFailureHandler(file.sinks[i].options);
    if (handler.ok() && !handler->queue_location.empty()) {
      std::cout << "; dead letters go to " << handler->queue_location;
    }
    std::cout << "\n";
  }
}

// The emulators a local run needs: those of its connectors' types and of
// what its `local:` section declares.
std::vector<emulators::EmulatorKind> EmulatorsFor(config::PipelineFile& file) {
  std::set<emulators::EmulatorKind> kinds = file.local.Emulators();
  auto add_type = [&](config::OptionMap& options) {
    absl::StatusOr<std::optional<std::string>> type = options.String("type");
    if (!type.ok() || !type->has_value()) return;
    for (emulators::EmulatorKind kind :
         config::ConnectorRegistry::Global().EmulatorsFor(**type)) {
      kinds.insert(kind);
    }
  };
  for (config::PipelineFile::Source& source : file.sources) {
    add_type(source.options);
  }
  for (config::PipelineFile::Sink& sink : file.sinks) add_type(sink.options);
  return {kinds.begin(), kinds.end()};
}

struct RunFlags {
  bool local = false;
  int metrics_port = -1;  // Off.
  std::string metrics_address = "127.0.0.1";
  std::string progress_interval = "10s";
};

int Run(const std::string& path, const RunFlags& flags) {
  const bool local = flags.local;
  absl::Duration progress_interval;
  if (!absl::ParseDuration(flags.progress_interval, &progress_interval) ||
      progress_interval <= absl::ZeroDuration()) {
    std::cerr << "gcpstream: --progress-interval '" << flags.progress_interval
              << "' is not a positive duration such as 10s or 500ms\n";
    return kBadConfiguration;
  }
  absl::StatusOr<config::PipelineFile> file = config::LoadPipelineFile(path);
  absl::StatusOr<std::unique_ptr<runtime::Pipeline>> pipeline =
      file.ok() ? Build(*file) : file.status();
  if (!pipeline.ok()) {
    std::cerr << "gcpstream: " << pipeline.status().message() << "\n";
    return kBadConfiguration;
  }
  std::unique_ptr<emulators::EmulatorSet> emulator_set;
  if (local) {
    emulators::EmulatorSetOptions options;
    options.kinds = EmulatorsFor(*file);
    if (!options.kinds.empty()) {
      absl::StatusOr<std::unique_ptr<emulators::EmulatorSet>> started =
          emulators::EmulatorSet::Start(options);
      if (!started.ok()) {
        std::cerr << "gcpstream: cannot start the emulators for --local: "
                  << started.status().message() << "\n";
        return kJobFailed;
      }
      emulator_set = *std::move(started);
      emulator_set->ExportEnvironment();
      std::cout << "gcpstream: local emulators:\n"
                << emulator_set->ShellExports();
    }
    if (absl::Status provisioned = config::Provision(file->local);
        !provisioned.ok()) {
      std::cerr << "gcpstream: cannot create what 'local:' declares: "
                << provisioned.message() << "\n";
      if (emulator_set != nullptr) emulator_set->Stop(/*keep_logs=*/true);
      return kJobFailed;
    }
    for (const std::string& declared : file->local.Declared()) {
      std::cout << "gcpstream: local: " << declared << "\n";
    }
  }
  // What --local started and created is printed before records flow, also
  // into a pipe: its exports are for other shells.
  std::cout << std::flush;
  StopOnSignal(**pipeline);
  std::unique_ptr<MetricsServer> metrics_server;
  if (flags.metrics_port >= 0) {
    absl::StatusOr<std::unique_ptr<MetricsServer>> started =
        MetricsServer::Start((*pipeline)->metrics(), flags.metrics_address,
                             flags.metrics_port, &(*pipeline)->health());
    if (!started.ok()) {
      std::cerr << "gcpstream: " << started.status().message() << "\n";
      if (emulator_set != nullptr) emulator_set->Stop(/*keep_logs=*/false);
      return kBadConfiguration;
    }
    metrics_server = *std::move(started);
    std::cout << "gcpstream: metrics on http://" << flags.metrics_address << ":"
              << metrics_server->port() << "/metrics, /healthz and /readyz\n"
              << std::flush;
  }
  absl::StatusOr<runtime::JobSummary> summary;
  {
    std::vector<std::string> sink_names;
    for (const auto& sink : file->sinks) sink_names.push_back(sink.name);
    ProgressReporter progress((*pipeline)->metrics(), sink_names,
                              isatty(STDERR_FILENO) == 1, progress_interval);
    summary = (*pipeline)->Run();
  }
  if (!summary.ok()) {
    std::cerr << "gcpstream: pipeline '" << (*pipeline)->options().name
              << "' failed for good (its restart strategy gave up): "
              << summary.status().message() << "\n";
    if (emulator_set != nullptr) {
      std::cerr << "gcpstream: emulator logs kept in "
                << emulator_set->log_dir() << "\n";
      emulator_set->Stop(/*keep_logs=*/true);
    }
    return kJobFailed;
  }
  std::cout << "gcpstream: pipeline '" << (*pipeline)->options().name << "' "
            << HowItEnded(*summary) << ": " << summary->checkpoints_completed
            << " checkpoints, " << summary->restarts << " restarts\n";
  if (summary->restored_checkpoint_id > 0 && summary->restarts == 0) {
    // A rerun with the same checkpoint directory resumes where the last run
    // stopped: input it finished is not read again.
    std::cout << "gcpstream: resumed from checkpoint "
              << summary->restored_checkpoint_id << " in "
              << (*pipeline)->options().checkpoint_directory
              << " (input read before it is not read again; remove the "
                 "directory to start over)\n";
  }
  PrintSummary(*file, **pipeline);
  int exit_code = 0;
  if (local) {
    absl::StatusOr<std::vector<std::string>> landed =
        config::DescribeWhatLanded(file->local);
    if (!landed.ok()) {
      std::cerr << "gcpstream: cannot count what landed: "
                << landed.status().message() << "\n";
      exit_code = kJobFailed;
    } else {
      for (const std::string& line : *landed) std::cout << "  " << line << "\n";
    }
  }
  if (emulator_set != nullptr) emulator_set->Stop(/*keep_logs=*/exit_code != 0);
  return exit_code;
}

}  // namespace
}  // namespace gcpstream::cli

int main(int argc, char** argv) {
  // Debian's Abseil ships with Mutex deadlock detection on, a lock-graph
  // update on every lock; a production binary does not pay for it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // Logs go to standard error, apart from the summary on standard output;
  // SPDLOG_LEVEL=debug logs every RPC (docs/cli.md).
  spdlog::set_default_logger(std::make_shared<spdlog::logger>(
      "", std::make_shared<spdlog::sinks::stderr_color_sink_mt>()));
  spdlog::cfg::load_env_levels();
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
  CLI::App* iceberg =
      app.add_subcommand("iceberg", "Iceberg table operations (add-files)");
  iceberg->require_subcommand(1);
  gcpstream::iceberg::AddFilesCommand add_files(*iceberg);
  CLI::App* emulators = app.add_subcommand(
      "emulators",
      "start, inspect and stop the local emulators (exec, start, env, "
      "status, stop)");
  emulators->require_subcommand(1);
  gcpstream::emulators::EmulatorsCommand emulators_command(*emulators);
  gcpstream::cli::RunFlags run_flags;
  run->add_flag("--local", run_flags.local,
                "start the emulators the pipeline needs, create what its "
                "'local:' section declares, run, print what landed, stop "
                "them");
  run->add_option("--metrics-port", run_flags.metrics_port,
                  "serve Prometheus /metrics, /healthz and /readyz on this "
                  "port (0: any free one)")
      ->check(CLI::Range(0, 65535));
  run->add_option("--metrics-address", run_flags.metrics_address,
                  "interface for --metrics-port (default 127.0.0.1; 0.0.0.0 "
                  "for all)");
  run->add_option("--progress-interval", run_flags.progress_interval,
                  "when stderr is not a terminal, a progress log line per "
                  "sink this often (default 10s)");
  try {  // CLI11 reports command-line errors only by exception.
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : gcpstream::cli::kBadConfiguration;
  }
  if (validate->parsed()) return gcpstream::cli::Validate(path);
  if (emulators->parsed()) return emulators_command.Run();
  if (add_files.parsed()) return add_files.Run();
  return gcpstream::cli::Run(path, run_flags);
}
