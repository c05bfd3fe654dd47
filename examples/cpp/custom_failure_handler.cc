// A failure handler of your own: orders Spanner refuses (here, a second
// insert of an existing order id) are appended to a local JSON-lines file,
// made durable at every checkpoint, and counted in a metric of their own.
//
//   custom_failure_handler --project P --instance I --database D
//       --count 1000 --rejects-dir /var/lib/orders/rejects
//
// Writes orders 0..count-1 with plain inserts into
//
//   CREATE TABLE Orders (OrderId INT64 NOT NULL, Customer STRING(64),
//                        Amount NUMERIC) PRIMARY KEY (OrderId)
//
// where every tenth order repeats the id of one written before it: Spanner
// answers ALREADY_EXISTS for it, and with constraint-violation-policy
// route-to-failure-handler the sink hands it to the handler instead of
// failing the job. Each subtask's handler writes rejects-<subtask>.jsonl.
//
// Against the emulator, export SPANNER_EMULATOR_HOST first.

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "gcpstream/base/failure_handler.h"
#include "gcpstream/runtime/connectors/generator_source.h"
#include "gcpstream/runtime/pipeline.h"
#include "gcpstream/spanner/spanner_sink.h"
#include "nlohmann/json.hpp"

namespace {

using gcpstream::FailureHandler;
using gcpstream::FailureHandlerContext;
using gcpstream::spanner::Mutation;
using gcpstream::spanner::SpannerFailedElement;
using gcpstream::spanner::Value;

// The contract (gcpstream/base/failure_handler.h): every call on the sink
// writer's task thread, so no locking; Handle() returning OK means the
// record is dealt with, and after Flush() returns OK it must survive a
// crash: the checkpoint that follows acknowledges the records upstream.
class RejectsFileHandler final : public FailureHandler<SpannerFailedElement> {
 public:
  explicit RejectsFileHandler(std::string directory)
      : directory_(std::move(directory)) {}
  ~RejectsFileHandler() override { Close(); }
  RejectsFileHandler(const RejectsFileHandler&) = delete;
  RejectsFileHandler& operator=(const RejectsFileHandler&) = delete;

  absl::Status Open(const FailureHandlerContext& context) override {
    Close();
    const std::string path =
        absl::StrCat(directory_, "/rejects-", context.subtask_index, ".jsonl");
    fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot open ", path,
                       " for appending: check that --rejects-dir exists and "
                       "is writable"));
    }
    if (context.metrics != nullptr) {
      auto counter = context.metrics->GetCounter(
          "orders_rejected", "orders Spanner refused, kept in rejects files",
          context.labels);
      if (!counter.ok()) return counter.status();
      rejected_ = *std::move(counter);
    }
    return absl::OkStatus();
  }

  absl::Status Handle(const SpannerFailedElement& failure) override {
    // The payload is the refused mutation as JSON (docs/spanner.md); a
    // record its serializer refused may carry none.
    const nlohmann::json line = {
        {"code", absl::StatusCodeToString(failure.status.code())},
        {"reason", std::string(failure.status.message())},
        {"database", failure.destination},
        {"attempts", failure.attempts},
        {"mutation", failure.payload.has_value()
                         ? nlohmann::json::parse(*failure.payload, nullptr,
                                                 /*allow_exceptions=*/false)
                         : nlohmann::json()}};
    const std::string text = line.dump() + "\n";
    for (size_t written = 0; written < text.size();) {
      const ssize_t n =
          write(fd_, text.data() + written, text.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return absl::ErrnoToStatus(errno, "appending a reject");
      written += static_cast<size_t>(n);
    }
    if (rejected_ != nullptr) rejected_->Increment();
    return absl::OkStatus();
  }

  absl::Status Flush() override {
    if (fsync(fd_) != 0) {
      return absl::ErrnoToStatus(errno, "making the rejects file durable");
    }
    return absl::OkStatus();
  }

  void Close() override {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  std::string directory_;
  int fd_ = -1;
  std::shared_ptr<gcpstream::Counter> rejected_;
};

struct Flags {
  std::string project;
  std::string instance;
  std::string database;
  int64_t count = 1000;
  std::string rejects_dir;
};

int Run(const Flags& flags) {
  gcpstream::runtime::GeneratorOptions generator_options;
  generator_options.count = flags.count;
  // Every tenth order repeats the id written five orders earlier.
  auto source = gcpstream::runtime::GeneratorSource<int64_t>::Create(
      "order-ids", [](int64_t i) { return i % 10 == 9 ? i - 5 : i; },
      generator_options);
  if (!source.ok()) {
    std::cerr << source.status() << "\n";
    return 2;
  }

  gcpstream::spanner::SpannerSinkOptions sink_options;
  sink_options.database = gcpstream::spanner::DatabaseDestination(
      flags.project, flags.instance, flags.database);
  sink_options.constraint_violation_policy =
      gcpstream::spanner::ConstraintViolationPolicy::kRouteToFailureHandler;
  const std::string rejects_dir = flags.rejects_dir;
  auto sink = std::make_shared<gcpstream::spanner::SpannerSink<int64_t>>(
      sink_options,
      [](const int64_t& id, const gcpstream::WriterContext& /*context*/)
          -> absl::StatusOr<std::optional<Mutation>> {
        return Mutation::Insert("Orders")
            .Set("OrderId", Value::Int64(id))
            .Set("Customer", Value::String(absl::StrCat("c-", id % 97)))
            .Set("Amount", Value::NumericValue("10.00"));
      },
      [rejects_dir](const gcpstream::runtime::SinkWriterContext& /*context*/)
          -> absl::StatusOr<
              std::unique_ptr<FailureHandler<SpannerFailedElement>>> {
        return std::make_unique<RejectsFileHandler>(rejects_dir);
      });

  gcpstream::runtime::PipelineOptions options;
  options.name = "orders-with-rejects";
  gcpstream::runtime::Pipeline pipeline(options);
  // One subtask: the repeated id is then always written after the original.
  pipeline
      .AddSource(std::shared_ptr<gcpstream::runtime::Source<int64_t>>(
                     *std::move(source)),
                 /*parallelism=*/1)
      .SinkTo(sink);
  absl::StatusOr<gcpstream::runtime::JobSummary> summary = pipeline.Run();
  if (!summary.ok()) {
    std::cerr << "orders-with-rejects failed: " << summary.status() << "\n";
    return 1;
  }
  std::cout << "wrote " << flags.count << " orders; refusals are in "
            << flags.rejects_dir << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Spanner refusals kept by a failure handler of your own"};
  Flags flags;
  app.add_option("--project", flags.project)->required();
  app.add_option("--instance", flags.instance)->required();
  app.add_option("--database", flags.database)->required();
  app.add_option("--count", flags.count)->check(CLI::PositiveNumber);
  app.add_option("--rejects-dir", flags.rejects_dir)->required();
  CLI11_PARSE(app, argc, argv);
  return Run(flags);
}
