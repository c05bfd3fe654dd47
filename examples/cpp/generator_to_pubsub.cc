// Generated orders into one Pub/Sub topic per region: the topic is chosen
// per record, and a missing topic is created on first use.
//
//   generator_to_pubsub --project P --count 3000 [--topic-prefix orders-]
//       [--regions eu,us,asia] [--checkpoint-dir DIR] [--rate 0]
//
// Order i goes to `<prefix><region i mod n>` as JSON, with the region as an
// attribute and the customer as ordering key. The source is bounded: the
// program ends once every order is acknowledged by Pub/Sub (at-least-once;
// a restart from a checkpoint in --checkpoint-dir resumes after the last
// order it covered).
//
// Against the emulator, export PUBSUB_EMULATOR_HOST first.

#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gcpstream/pubsub/pubsub_sink.h"
#include "gcpstream/runtime/connectors/generator_source.h"
#include "gcpstream/runtime/pipeline.h"

namespace {

using gcpstream::pubsub::TopicDestination;

struct Order {
  int64_t id = 0;
  std::string region;
  std::string customer;
  int64_t amount_cents = 0;
};

struct Flags {
  std::string project;
  int64_t count = 3000;
  std::string topic_prefix = "orders-";
  std::string regions = "eu,us,asia";
  std::string checkpoint_dir;
  double rate = 0;
};

std::string ToJson(const Order& order) {
  return absl::StrFormat(
      R"({"order_id":%d,"region":"%s","customer":"%s","amount":"%d.%02d"})",
      order.id, order.region, order.customer, order.amount_cents / 100,
      order.amount_cents % 100);
}

int Run(const Flags& flags) {
  const std::vector<std::string> regions =
      absl::StrSplit(flags.regions, ',', absl::SkipEmpty());
  if (regions.empty()) {
    std::cerr << "--regions must name at least one region\n";
    return 2;
  }
  gcpstream::runtime::GeneratorOptions generator_options;
  generator_options.count = flags.count;
  generator_options.records_per_second = flags.rate;
  auto source = gcpstream::runtime::GeneratorSource<Order>::Create(
      "orders",
      [regions](int64_t i) {
        return Order{.id = i,
                     .region = regions[i % regions.size()],
                     .customer = absl::StrCat("c-", i % 97),
                     .amount_cents = 100 + (i * 37) % 10'000};
      },
      generator_options);
  if (!source.ok()) {
    std::cerr << source.status() << "\n";
    return 2;
  }

  gcpstream::pubsub::PubSubSinkOptions sink_options;
  sink_options.enable_message_ordering = true;
  const std::string project = flags.project;
  const std::string prefix = flags.topic_prefix;
  auto sink = std::make_shared<gcpstream::pubsub::PubSubSink<Order>>(
      sink_options,
      gcpstream::MakeResolver<Order, TopicDestination>(
          [project, prefix](const Order& order,
                            const gcpstream::WriterContext& /*context*/)
              -> absl::StatusOr<TopicDestination> {
            return TopicDestination(project, prefix + order.region);
          }),
      gcpstream::pubsub::MakeMessageSerializer<Order>(
          [](const Order& order) -> absl::StatusOr<std::optional<std::string>> {
            return ToJson(order);
          },
          [](const Order& order) {
            return std::map<std::string, std::string>{{"region", order.region}};
          },
          [](const Order& order) { return order.customer; }));

  gcpstream::runtime::PipelineOptions options;
  options.name = "generated-orders";
  options.checkpoint_directory = flags.checkpoint_dir;
  gcpstream::runtime::Pipeline pipeline(options);
  pipeline
      .AddSource(std::shared_ptr<gcpstream::runtime::Source<Order>>(
                     *std::move(source)),
                 /*parallelism=*/2)
      .KeyBy([](const Order& order) { return order.customer; }, 2)
      .SinkTo(sink);
  absl::StatusOr<gcpstream::runtime::JobSummary> summary = pipeline.Run();
  if (!summary.ok()) {
    std::cerr << "generated-orders failed: " << summary.status() << "\n";
    return 1;
  }
  std::cout << "published " << flags.count << " orders to " << regions.size()
            << " topics\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Generated orders into one Pub/Sub topic per region"};
  Flags flags;
  app.add_option("--project", flags.project)->required();
  app.add_option("--count", flags.count)->check(CLI::PositiveNumber);
  app.add_option("--topic-prefix", flags.topic_prefix);
  app.add_option("--regions", flags.regions, "comma-separated");
  app.add_option("--checkpoint-dir", flags.checkpoint_dir,
                 "where checkpoints go (none: a restart starts over)");
  app.add_option("--rate", flags.rate, "orders per second, 0: unlimited");
  CLI11_PARSE(app, argc, argv);
  return Run(flags);
}
