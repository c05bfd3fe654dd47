// Orders from a Pub/Sub subscription into a Spanner table, keyed by customer,
// with refused orders on a dead-letter topic.
//
//   pubsub_to_spanner --project P --subscription orders-sub
//       --instance I --database D --dead-letter-topic orders-dead
//       --checkpoint-dir /var/lib/orders [--parallelism 2]
//
// Each message is an order as JSON: {"order_id": 7, "customer": "c-1",
// "amount": "12.50"}. It is written with insert-or-update into
//
//   CREATE TABLE Orders (OrderId INT64 NOT NULL, Customer STRING(64),
//                        Amount NUMERIC) PRIMARY KEY (OrderId)
//
// so a message delivered twice (after a crash) writes the same row twice:
// the table ends up exact. An order with a negative amount, or one the
// database refuses, goes to the dead-letter topic with the reason; a message
// that is not an order at all is acknowledged, counted and dropped. Runs
// until SIGTERM or SIGINT, then drains: a final checkpoint, every written
// message acknowledged.
//
// Against the emulators, export PUBSUB_EMULATOR_HOST and
// SPANNER_EMULATOR_HOST first (`gcpstream emulators start -e pubsub,spanner`).

#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "gcpstream/base/failure_handler.h"
#include "gcpstream/pubsub/pubsub_dead_letter_queue.h"
#include "gcpstream/pubsub/pubsub_source.h"
#include "gcpstream/runtime/pipeline.h"
#include "gcpstream/spanner/spanner_sink.h"
#include "nlohmann/json.hpp"
#include "stop_on_signal.h"

namespace {

using gcpstream::WithRecordPayload;
using gcpstream::spanner::Mutation;
using gcpstream::spanner::Value;

struct Order {
  int64_t id = 0;
  std::string customer;
  std::string amount;  // a decimal, kept as text: NUMERIC is exact
  std::string json;    // the message, for the dead-letter entry
};

struct Flags {
  std::string project;
  std::string subscription;
  std::string instance;
  std::string database;
  std::string dead_letter_topic;
  std::string checkpoint_dir;
  int parallelism = 2;
};

// Appends the order in `message`, or fails (the source's
// deserialization-failure policy then decides).
absl::Status ParseOrder(const google::pubsub::v1::PubsubMessage& message,
                        std::vector<Order>& out) {
  const nlohmann::json json = nlohmann::json::parse(message.data(), nullptr,
                                                    /*allow_exceptions=*/false);
  const nlohmann::json none;
  auto field = [&](const char* name) -> const nlohmann::json& {
    if (!json.is_object()) return none;
    auto it = json.find(name);
    return it == json.end() ? none : *it;
  };
  const nlohmann::json& id = field("order_id");
  const nlohmann::json& customer = field("customer");
  const nlohmann::json& amount = field("amount");
  if (!id.is_number_integer() || !customer.is_string() || !amount.is_string()) {
    return absl::InvalidArgumentError(
        "not an order: want {order_id: integer, customer: string, amount: "
        "decimal string}");
  }
  out.push_back(Order{.id = id.get<int64_t>(),
                      .customer = customer.get<std::string>(),
                      .amount = amount.get<std::string>(),
                      .json = message.data()});
  return absl::OkStatus();
}

// The mutation for `order`; a refusal carries the order so that the
// dead-letter entry holds it.
absl::StatusOr<std::optional<Mutation>> ToMutation(
    const Order& order, const gcpstream::WriterContext& /*context*/) {
  if (!order.amount.empty() && order.amount.front() == '-') {
    return WithRecordPayload(
        absl::InvalidArgumentError("an order's amount cannot be negative"),
        order.json);
  }
  return Mutation::InsertOrUpdate("Orders")
      .Set("OrderId", Value::Int64(order.id))
      .Set("Customer", Value::String(order.customer))
      .Set("Amount", Value::NumericValue(order.amount));
}

int Run(const Flags& flags) {
  using gcpstream::pubsub::PubSubSource;
  gcpstream::pubsub::PubSubSourceOptions source_options;
  source_options.subscriptions.push_back(
      {.project = flags.project, .subscription = flags.subscription});
  source_options.deserialization_failure_policy =
      gcpstream::pubsub::DeserializationFailurePolicy::kDrop;
  auto source =
      std::make_shared<PubSubSource<Order>>(source_options, ParseOrder);

  gcpstream::spanner::SpannerSinkOptions sink_options;
  sink_options.database = gcpstream::spanner::DatabaseDestination(
      flags.project, flags.instance, flags.database);
  sink_options.constraint_violation_policy =
      gcpstream::spanner::ConstraintViolationPolicy::kRouteToFailureHandler;
  const std::string dead_letter_topic = flags.dead_letter_topic;
  const std::string project = flags.project;
  auto sink = std::make_shared<gcpstream::spanner::SpannerSink<Order>>(
      sink_options, ToMutation,
      [project,
       dead_letter_topic](const gcpstream::runtime::SinkWriterContext& context)
          -> absl::StatusOr<std::unique_ptr<gcpstream::FailureHandler<
              gcpstream::spanner::SpannerFailedElement>>> {
        gcpstream::pubsub::PubSubDeadLetterQueueOptions queue_options;
        queue_options.project = project;
        queue_options.topic = dead_letter_topic;
        auto queue = gcpstream::pubsub::PubSubDeadLetterQueue::Create(
            queue_options, context.mailbox);
        if (!queue.ok()) return queue.status();
        return gcpstream::SendToDeadLetterQueue<
            gcpstream::spanner::SpannerFailedElement>(*std::move(queue));
      });

  gcpstream::runtime::PipelineOptions options;
  options.name = "orders-to-spanner";
  options.checkpoint_directory = flags.checkpoint_dir;
  options.checkpoint_interval = absl::Seconds(2);
  gcpstream::runtime::Pipeline pipeline(options);
  pipeline.AddSource(source, flags.parallelism)
      .KeyBy([](const Order& order) { return order.customer; },
             flags.parallelism)
      .SinkTo(sink);

  std::jthread stopper = gcpstream_examples::StopOnSignal(pipeline);
  absl::StatusOr<gcpstream::runtime::JobSummary> summary = pipeline.Run();
  stopper.request_stop();
  if (!summary.ok()) {
    std::cerr << "orders-to-spanner failed: " << summary.status() << "\n";
    return 1;
  }
  std::cout << "orders-to-spanner stopped after "
            << summary->checkpoints_completed << " checkpoints\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Orders from Pub/Sub into Spanner, refusals dead-lettered"};
  Flags flags;
  app.add_option("--project", flags.project)->required();
  app.add_option("--subscription", flags.subscription)->required();
  app.add_option("--instance", flags.instance)->required();
  app.add_option("--database", flags.database)->required();
  app.add_option("--dead-letter-topic", flags.dead_letter_topic)->required();
  app.add_option("--checkpoint-dir", flags.checkpoint_dir)->required();
  app.add_option("--parallelism", flags.parallelism)->check(CLI::Range(1, 64));
  CLI11_PARSE(app, argc, argv);
  return Run(flags);
}
