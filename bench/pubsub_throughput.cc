// Messages per second of client CPU for the Pub/Sub sink and source against
// a null Pub/Sub (a child process that accepts everything and streams
// prebuilt messages), next to raw-stub loops doing the same requests, so
// the connectors' overhead is a ratio. 1 KiB and 100 B messages; the sink
// at its default batching (100 messages), the source acknowledging every
// 5000 messages as a checkpoint would. Each run of each scenario is a fresh
// forked process, so none inherits another's heap, threads or peak RSS.
//
//   pubsub_throughput [--messages N] [--runs R] [--sizes B...] [--quick]
//                     [--only SCENARIO]

#include <algorithm>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "bench/measure.h"
#include "bench/pubsub_null_service.h"
#include "gcpstream/base/metrics.h"
#include "gcpstream/pubsub/pubsub_sink.h"
#include "gcpstream/pubsub/pubsub_source.h"
#include "gcpstream/runtime/mailbox.h"
#include "gcpstream/runtime/task_signal.h"
#include "google/pubsub/v1/pubsub.grpc.pb.h"

namespace gcpstream::bench {
namespace {

namespace v1 = ::google::pubsub::v1;

constexpr int kBatch = 100;                 // The sink's default batch.
constexpr int64_t kCheckpointEvery = 5000;  // Source messages per ack round.
constexpr char kTopic[] = "projects/bench/topics/bench";
constexpr char kSubscription[] = "projects/bench/subscriptions/bench";
constexpr char kTopicRouting[] = "topic=projects/bench/topics/bench";

struct Result {
  std::string scenario;
  int64_t messages = 0;
  int64_t bytes = 0;
  double wall_seconds = 0;
  double cpu_seconds = 0;
  double rss_mib = 0;
  double p50_ms = -1;  // Publish latency; -1 where not measured.
  double p99_ms = -1;
  double PerCpuSecond() const {
    return static_cast<double>(messages) / cpu_seconds;
  }
};

// A benchmark has no one to hand an error to: it reports it and stops, so
// a broken run never prints figures.
void Check(const absl::Status& status) {
  if (status.ok()) return;
  std::fprintf(stderr, "%s\n", status.ToString().c_str());
  std::exit(1);
}

void Check(const grpc::Status& status, const char* call) {
  if (status.ok()) return;
  std::fprintf(stderr, "%s failed: %d %s\n", call,
               static_cast<int>(status.error_code()),
               status.error_message().c_str());
  std::exit(1);
}

// The q-quantile of a Prometheus histogram in `text`, interpolated linearly
// inside its bucket as histogram_quantile() does, in milliseconds.
double HistogramQuantileMs(const std::string& text, const std::string& name,
                           double q) {
  std::vector<std::pair<double, double>> buckets;  // (bound, cumulative)
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::StartsWith(line, name + "_bucket{")) continue;
    const size_t le = line.find("le=\"");
    const size_t end = line.find('"', le + 4);
    double bound = 0;
    double count = 0;
    const absl::string_view bound_text = line.substr(le + 4, end - le - 4);
    if (bound_text == "+Inf") {
      bound = 1e300;
    } else if (!absl::SimpleAtod(bound_text, &bound)) {
      continue;
    }
    if (!absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &count)) continue;
    buckets.emplace_back(bound, count);
  }
  if (buckets.empty() || buckets.back().second == 0) return -1;
  const double rank = q * buckets.back().second;
  double lower = 0;
  double below = 0;
  for (const auto& [bound, cumulative] : buckets) {
    if (cumulative >= rank) {
      if (bound >= 1e300) return lower * 1000;
      const double inside = cumulative - below;
      const double fraction = inside > 0 ? (rank - below) / inside : 1;
      return (lower + (bound - lower) * fraction) * 1000;
    }
    lower = bound;
    below = cumulative;
  }
  return -1;
}

double QuantileMs(std::vector<double> seconds, double q) {
  if (seconds.empty()) return -1;
  std::sort(seconds.begin(), seconds.end());
  return seconds[static_cast<size_t>(q *
                                     static_cast<double>(seconds.size() - 1))] *
         1000;
}

// What the connectors put on their unary calls, so the raw loops send the
// same requests: a deadline and, on publishes, the routing header.
void LikeTheConnectors(grpc::ClientContext& context,
                       const char* routing = nullptr) {
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
  if (routing != nullptr) context.AddMetadata("x-goog-request-params", routing);
}

// Acknowledges `ack_ids` in requests of at most 1000, like the source.
void Acknowledge(v1::Subscriber::Stub& stub,
                 std::vector<std::string>& ack_ids) {
  for (size_t at = 0; at < ack_ids.size(); at += 1000) {
    v1::AcknowledgeRequest request;
    request.set_subscription(kSubscription);
    for (size_t i = at; i < std::min(ack_ids.size(), at + 1000); ++i) {
      request.add_ack_ids(std::move(ack_ids[i]));
    }
    grpc::ClientContext context;
    LikeTheConnectors(context);
    google::protobuf::Empty empty;
    Check(stub.Acknowledge(&context, request, &empty), "Acknowledge");
  }
  ack_ids.clear();
}

// What both raw pull loops do with a response, as the source does: copy
// each message's data, and acknowledge every kCheckpointEvery messages as
// a completed checkpoint would.
class RawConsumer {
 public:
  explicit RawConsumer(v1::Subscriber::Stub& stub) : stub_(stub) {}

  void Take(v1::StreamingPullResponse& response) {
    for (v1::ReceivedMessage& message : *response.mutable_received_messages()) {
      records_.push_back(message.message().data());
      bytes += static_cast<int64_t>(records_.back().size());
      ack_ids_.push_back(std::move(*message.mutable_ack_id()));
      ++received;
    }
    records_.clear();
    if (static_cast<int64_t>(ack_ids_.size()) >= kCheckpointEvery) {
      AcknowledgeAll();
    }
  }

  void AcknowledgeAll() { Acknowledge(stub_, ack_ids_); }

  int64_t received = 0;
  int64_t bytes = 0;

 private:
  v1::Subscriber::Stub& stub_;
  std::vector<std::string> records_;
  std::vector<std::string> ack_ids_;
};

Result RunSink(const std::string& address, int64_t messages,
               const std::string& payload) {
  pubsub::PubSubSinkOptions options;
  options.channel.endpoint = address;
  options.channel.plaintext = true;
  options.create_disposition = pubsub::CreateDisposition::kCreateNever;
  pubsub::PubSubSink<std::string> sink(
      options, pubsub::TopicDestination("bench", "bench"),
      [](const std::string& record, const WriterContext&,
         v1::PubsubMessage& message) -> absl::StatusOr<pubsub::Serialized> {
        message.set_data(record);
        return pubsub::Serialized::kPublish;
      });
  MetricsRegistry registry;
  runtime::Mailbox mailbox(std::make_shared<runtime::TaskSignal>());
  runtime::SinkWriterContext context;
  context.mailbox = runtime::MailboxExecutor(&mailbox);
  context.metrics = &registry;
  auto writer = sink.CreateWriter(context);
  Check(writer.status());
  const double cpu = CpuSeconds();
  const absl::Time start = absl::Now();
  WriterContext record;
  for (int64_t i = 0; i < messages; ++i) {
    record.record_position = i;
    Check((*writer)->Write(payload, record));
  }
  Check((*writer)->Flush(true));
  Result result{.scenario = "sink",
                .messages = messages,
                .bytes = messages * static_cast<int64_t>(payload.size()),
                .wall_seconds = absl::ToDoubleSeconds(absl::Now() - start),
                .cpu_seconds = CpuSeconds() - cpu,
                .rss_mib = PeakRssMib()};
  const std::string text = registry.ExportPrometheusText();
  result.p50_ms = HistogramQuantileMs(text, "publish_latency_seconds", 0.5);
  result.p99_ms = HistogramQuantileMs(text, "publish_latency_seconds", 0.99);
  (*writer)->Close();
  return result;
}

// A raw publish loop's figures, from when it `start`ed and the CPU seconds
// `cpu` it had used by then.
Result PublishResult(std::string scenario, int64_t messages,
                     const std::string& payload, absl::Time start, double cpu,
                     std::vector<double> latencies) {
  return Result{.scenario = std::move(scenario),
                .messages = messages,
                .bytes = messages * static_cast<int64_t>(payload.size()),
                .wall_seconds = absl::ToDoubleSeconds(absl::Now() - start),
                .cpu_seconds = CpuSeconds() - cpu,
                .rss_mib = PeakRssMib(),
                .p50_ms = QuantileMs(latencies, 0.5),
                .p99_ms = QuantileMs(std::move(latencies), 0.99)};
}

// The same requests, built straight into protos and sent one at a time.
Result RunRawPublish(const std::string& address, int64_t messages,
                     const std::string& payload) {
  auto stub = v1::Publisher::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  std::vector<double> latencies;
  const double cpu = CpuSeconds();
  const absl::Time start = absl::Now();
  for (int64_t first = 0; first < messages; first += kBatch) {
    v1::PublishRequest request;
    request.set_topic(kTopic);
    for (int64_t i = first; i < std::min(messages, first + kBatch); ++i) {
      request.add_messages()->set_data(payload);
    }
    grpc::ClientContext context;
    LikeTheConnectors(context, kTopicRouting);
    v1::PublishResponse response;
    const absl::Time sent = absl::Now();
    Check(stub->Publish(&context, request, &response), "Publish");
    latencies.push_back(absl::ToDoubleSeconds(absl::Now() - sent));
  }
  return PublishResult("raw publish", messages, payload, start, cpu, latencies);
}

// The same requests through the callback API, with as many in flight as
// the sink allows by default (1000 messages = 10 batches): the fair
// baseline for a pipelined client, thread hand-offs included.
Result RunRawAsyncPublish(const std::string& address, int64_t messages,
                          const std::string& payload) {
  constexpr int kInFlight = 10;
  auto stub = v1::Publisher::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  struct Call {
    grpc::ClientContext context;
    v1::PublishRequest request;
    v1::PublishResponse response;
    absl::Time sent;
  };
  absl::Mutex mu;
  int in_flight = 0;
  std::vector<double> latencies;
  const double cpu = CpuSeconds();
  const absl::Time start = absl::Now();
  for (int64_t first = 0; first < messages; first += kBatch) {
    auto call = std::make_shared<Call>();
    call->request.set_topic(kTopic);
    for (int64_t i = first; i < std::min(messages, first + kBatch); ++i) {
      call->request.add_messages()->set_data(payload);
    }
    {
      absl::MutexLock lock(&mu);
      mu.Await(absl::Condition(
          +[](const int* n) { return *n < kInFlight; },
          static_cast<const int*>(&in_flight)));
      ++in_flight;
    }
    LikeTheConnectors(call->context, kTopicRouting);
    call->sent = absl::Now();
    stub->async()->Publish(
        &call->context, &call->request, &call->response,
        [call, &mu, &in_flight, &latencies](const grpc::Status& status) {
          Check(status, "Publish");
          const double seconds =
              absl::ToDoubleSeconds(absl::Now() - call->sent);
          absl::MutexLock lock(&mu);
          latencies.push_back(seconds);
          --in_flight;
        });
  }
  {
    absl::MutexLock lock(&mu);
    mu.Await(absl::Condition(
        +[](const int* n) { return *n == 0; },
        static_cast<const int*>(&in_flight)));
  }
  return PublishResult("raw async publish", messages, payload, start, cpu,
                       latencies);
}

class CountingOutput final : public runtime::ReaderOutput<std::string> {
 public:
  void Collect(std::string record) override { Count(record); }
  void Collect(std::string record, absl::Time) override { Count(record); }
  int64_t messages = 0;
  int64_t bytes = 0;

 private:
  void Count(const std::string& record) {
    ++messages;
    bytes += static_cast<int64_t>(record.size());
  }
};

Result RunSource(const std::string& address, int64_t messages) {
  pubsub::PubSubSourceOptions options;
  options.subscriptions.push_back(
      pubsub::SubscriptionSpec{.project = "bench", .subscription = "bench"});
  options.channel.endpoint = address;
  options.channel.plaintext = true;
  pubsub::PubSubSource<std::string> source(
      options,
      [](const v1::PubsubMessage& message, std::vector<std::string>& out) {
        out.push_back(message.data());
        return absl::OkStatus();
      });
  auto splits = source.PlanSplits(1);
  Check(splits.status());
  MetricsRegistry registry;
  runtime::Mailbox mailbox(std::make_shared<runtime::TaskSignal>());
  runtime::SourceReaderContext context;
  context.mailbox = runtime::MailboxExecutor(&mailbox);
  context.metrics = &registry;
  context.checkpoint_interval = absl::Seconds(1);
  const double cpu = CpuSeconds();
  const absl::Time start = absl::Now();
  auto reader = source.CreateReader(context, *splits);
  Check(reader.status());
  CountingOutput output;
  int64_t checkpoint = 0;
  int64_t acknowledged_up_to = 0;
  while (output.messages < messages) {
    const uint64_t seen = mailbox.signal().generation();
    mailbox.RunCompletions();
    auto result = (*reader)->PollNext(output);
    Check(result.status());
    if (output.messages - acknowledged_up_to >= kCheckpointEvery) {
      Check((*reader)->SnapshotState(++checkpoint).status());
      Check((*reader)->NotifyCheckpointComplete(checkpoint));
      acknowledged_up_to = output.messages;
    }
    if (result->status == runtime::InputStatus::kNothingAvailable) {
      mailbox.signal().WaitPast(seen, absl::Now() + absl::Milliseconds(50));
    }
  }
  Result result{.scenario = "source",
                .messages = output.messages,
                .bytes = output.bytes,
                .wall_seconds = absl::ToDoubleSeconds(absl::Now() - start),
                .cpu_seconds = CpuSeconds() - cpu,
                .rss_mib = PeakRssMib()};
  (*reader)->Close();
  return result;
}

// A streaming pull read with the stub, acknowledging in chunks of 1000 every
// kCheckpointEvery messages, copying each message's data like the source.
Result RunRawPull(const std::string& address, int64_t messages) {
  auto stub = v1::Subscriber::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  const double cpu = CpuSeconds();
  const absl::Time start = absl::Now();
  grpc::ClientContext context;
  auto stream = stub->StreamingPull(&context);
  v1::StreamingPullRequest first;
  first.set_subscription(kSubscription);
  first.set_stream_ack_deadline_seconds(60);
  if (!stream->Write(first)) Check(stream->Finish(), "StreamingPull");
  RawConsumer consumer(*stub);
  v1::StreamingPullResponse response;
  while (consumer.received < messages && stream->Read(&response)) {
    consumer.Take(response);
  }
  consumer.AcknowledgeAll();
  context.TryCancel();
  (void)stream->Finish();
  return Result{.scenario = "raw streaming pull",
                .messages = consumer.received,
                .bytes = consumer.bytes,
                .wall_seconds = absl::ToDoubleSeconds(absl::Now() - start),
                .cpu_seconds = CpuSeconds() - cpu,
                .rss_mib = PeakRssMib()};
}

// A streaming pull through the callback API: gRPC's thread hands each
// response to the calling thread, which copies the data and acknowledges
// like RunRawPull. The fair baseline for the source's reactor.
Result RunRawAsyncPull(const std::string& address, int64_t messages) {
  class Reactor final
      : public grpc::ClientBidiReactor<v1::StreamingPullRequest,
                                       v1::StreamingPullResponse> {
   public:
    void Start(v1::Subscriber::Stub& stub) {
      first_.set_subscription(kSubscription);
      first_.set_stream_ack_deadline_seconds(60);
      stub.async()->StreamingPull(&context_, this);
      StartWrite(&first_);
      StartRead(&response_);
      StartCall();
    }
    // The next response, or nullopt once the stream ended.
    std::optional<v1::StreamingPullResponse> Next() {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](Reactor* r) { return !r->ready_.empty() || r->done_; }, this));
      if (ready_.empty()) return std::nullopt;
      v1::StreamingPullResponse next = std::move(ready_.front());
      ready_.pop_front();
      if (!reading_) {
        reading_ = true;
        StartRead(&response_);
      }
      return next;
    }
    void Stop() {
      context_.TryCancel();
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(&done_));
    }
    void OnWriteDone(bool) override {}
    void OnReadDone(bool ok) override {
      absl::MutexLock lock(&mu_);
      reading_ = false;
      if (!ok) return;
      ready_.push_back(std::move(response_));
      response_.Clear();
      // Flow control: at most a few responses queued, like the source.
      if (ready_.size() < 4) {
        reading_ = true;
        StartRead(&response_);
      }
    }
    void OnDone(const grpc::Status&) override {
      absl::MutexLock lock(&mu_);
      done_ = true;
    }

   private:
    grpc::ClientContext context_;
    v1::StreamingPullRequest first_;
    v1::StreamingPullResponse response_;
    absl::Mutex mu_;
    std::deque<v1::StreamingPullResponse> ready_ ABSL_GUARDED_BY(mu_);
    bool reading_ ABSL_GUARDED_BY(mu_) = true;
    bool done_ ABSL_GUARDED_BY(mu_) = false;
  };
  auto stub = v1::Subscriber::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  const double cpu = CpuSeconds();
  const absl::Time start = absl::Now();
  Reactor reactor;
  reactor.Start(*stub);
  RawConsumer consumer(*stub);
  while (consumer.received < messages) {
    std::optional<v1::StreamingPullResponse> response = reactor.Next();
    if (!response.has_value()) break;
    consumer.Take(*response);
  }
  consumer.AcknowledgeAll();
  reactor.Stop();
  return Result{.scenario = "raw async pull",
                .messages = consumer.received,
                .bytes = consumer.bytes,
                .wall_seconds = absl::ToDoubleSeconds(absl::Now() - start),
                .cpu_seconds = CpuSeconds() - cpu,
                .rss_mib = PeakRssMib()};
}

// A result across the pipe from a scenario's process, as one line of
// tab-separated fields.
std::string Encode(const Result& r) {
  return absl::StrCat(r.scenario, "\t", r.messages, "\t", r.bytes, "\t",
                      r.wall_seconds, "\t", r.cpu_seconds, "\t", r.rss_mib,
                      "\t", r.p50_ms, "\t", r.p99_ms);
}

Result Decode(const std::string& line) {
  const std::vector<std::string> f = absl::StrSplit(line, '\t');
  Result r;
  if (f.size() != 8 || !absl::SimpleAtoi(f[1], &r.messages) ||
      !absl::SimpleAtoi(f[2], &r.bytes) ||
      !absl::SimpleAtod(f[3], &r.wall_seconds) ||
      !absl::SimpleAtod(f[4], &r.cpu_seconds) ||
      !absl::SimpleAtod(f[5], &r.rss_mib) ||
      !absl::SimpleAtod(f[6], &r.p50_ms) ||
      !absl::SimpleAtod(f[7], &r.p99_ms)) {
    std::fprintf(stderr, "unreadable scenario result: %s\n", line.c_str());
    std::exit(1);
  }
  r.scenario = f[0];
  return r;
}

Result Median(std::vector<Result> runs) {
  std::sort(runs.begin(), runs.end(), [](const Result& a, const Result& b) {
    return a.PerCpuSecond() < b.PerCpuSecond();
  });
  return runs[runs.size() / 2];
}

void Print(const Result& r, size_t message_bytes) {
  const double mb_per_cpu_second =
      static_cast<double>(r.bytes) / 1e6 / r.cpu_seconds;
  std::printf("%-20s %5zu B %9.0f msgs/s wall %9.0f msgs/CPU-s %7.1f MB/CPU-s",
              r.scenario.c_str(), message_bytes,
              static_cast<double>(r.messages) / r.wall_seconds,
              r.PerCpuSecond(), mb_per_cpu_second);
  if (r.p50_ms >= 0) {
    std::printf("  publish p50 %.2f ms p99 %.2f ms", r.p50_ms, r.p99_ms);
  }
  std::printf("  RSS %.0f MiB\n", r.rss_mib);
  std::printf(
      "{\"benchmark\":\"pubsub\",\"scenario\":\"%s\",\"message_bytes\":%zu,"
      "\"messages\":%lld,\"messages_per_cpu_second\":%.0f,"
      "\"mb_per_cpu_second\":%.1f,\"messages_per_wall_second\":%.0f,"
      "\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"peak_rss_mib\":%.1f}\n",
      r.scenario.c_str(), message_bytes, static_cast<long long>(r.messages),
      r.PerCpuSecond(), mb_per_cpu_second,
      static_cast<double>(r.messages) / r.wall_seconds, r.p50_ms, r.p99_ms,
      r.rss_mib);
}

}  // namespace
}  // namespace gcpstream::bench

int main(int argc, char** argv) {
  using namespace gcpstream::bench;  // NOLINT(google-build-using-namespace)
  CLI::App app{"Pub/Sub sink and source throughput against a null Pub/Sub"};
  int64_t messages = 500'000;
  int runs = 3;
  bool quick = false;
  std::string only;
  app.add_option("--messages", messages);
  app.add_option("--only", only,
                 "run one scenario and no other, e.g. to profile")
      ->check(
          CLI::IsMember({"sink", "source", "raw-publish", "raw-async-publish",
                         "raw-pull", "raw-async-pull"}));
  app.add_option("--runs", runs);
  std::vector<size_t> sizes = {1024, 100};
  app.add_option("--sizes", sizes, "message sizes in bytes");
  app.add_flag("--quick", quick, "a few thousand messages, one run (smoke)");
  CLI11_PARSE(app, argc, argv);
  // Debian's Abseil is built with Mutex deadlock detection on, which costs
  // a graph update per lock; production binaries turn it off, and so do we
  // for every scenario alike.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  if (quick) {
    messages = 5000;
    runs = 1;
  }
  // Before any gRPC use in this process: the servers are forked children.
  std::map<size_t, ForkedServer> servers;
  for (size_t size : sizes) servers[size] = StartNullPubSub(size);
  for (size_t size : sizes) {
    const std::string& address = servers[size].address;
    const std::string payload(size, 'x');
    const std::map<std::string, std::function<Result()>> scenarios = {
        {"sink", [&] { return RunSink(address, messages, payload); }},
        {"source", [&] { return RunSource(address, messages); }},
        {"raw-publish",
         [&] { return RunRawPublish(address, messages, payload); }},
        {"raw-async-publish",
         [&] { return RunRawAsyncPublish(address, messages, payload); }},
        {"raw-pull", [&] { return RunRawPull(address, messages); }},
        {"raw-async-pull", [&] { return RunRawAsyncPull(address, messages); }},
    };
    if (!only.empty()) {
      Print(scenarios.at(only)(), size);
      continue;
    }
    std::map<std::string, std::vector<Result>> results;
    for (int run = 0; run < runs; ++run) {
      for (const auto& entry : scenarios) {
        const std::function<Result()>& scenario = entry.second;
        results[entry.first].push_back(
            Decode(RunInChild([&scenario] { return Encode(scenario()); })));
      }
    }
    for (const auto& [ours, raws] :
         {std::pair{"sink", std::vector{"raw-publish", "raw-async-publish"}},
          std::pair{"source", std::vector{"raw-pull", "raw-async-pull"}}}) {
      for (const char* raw : raws) Print(Median(results[raw]), size);
      Print(Median(results[ours]), size);
      for (const char* raw : raws) {
        // Each run's scenarios ran back to back, so the ratio within a run
        // cancels most of a shared machine's drift between runs.
        std::vector<double> ratios;
        ratios.reserve(runs);
        for (int run = 0; run < runs; ++run) {
          ratios.push_back(results[raw][run].PerCpuSecond() /
                           results[ours][run].PerCpuSecond());
        }
        std::sort(ratios.begin(), ratios.end());
        std::printf(
            "overhead %s %zu B vs %s (raw msgs/CPU-s / ours, per run): "
            "median %.2fx, range %.2f-%.2fx\n",
            Median(results[ours]).scenario.c_str(), size,
            Median(results[raw]).scenario.c_str(), ratios[ratios.size() / 2],
            ratios.front(), ratios.back());
      }
    }
  }
  for (const auto& [size, server] : servers) StopForkedServer(server);
  return 0;
}
