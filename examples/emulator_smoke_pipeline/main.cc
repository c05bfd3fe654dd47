// The README's "run the main job" pipeline until the CLI exists: orders are
// published to Pub/Sub, pulled, written to Spanner and Bigtable, and only
// then acknowledged (at-least-once in miniature), then counted back.
//
// It talks to whatever the *_EMULATOR_HOST variables point at; run it under
// `gcpstream-emulators exec -- emulator_smoke_pipeline`.

#include <grpcpp/client_context.h>

#include <iostream>
#include <set>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/emulators/provisioning.h"
#include "google/bigtable/v2/bigtable.grpc.pb.h"
#include "google/pubsub/v1/pubsub.grpc.pb.h"
#include "google/spanner/v1/spanner.grpc.pb.h"

namespace {

using gcpstream::auth::MakeChannel;
using gcpstream::auth::Service;

constexpr char kProject[] = "gcpstream-local";
constexpr char kInstance[] = "local";
constexpr char kTopic[] = "orders";
constexpr char kSubscription[] = "orders-to-stores";
constexpr char kDatabase[] =
    "projects/gcpstream-local/instances/local/databases/orders";
constexpr char kTable[] =
    "projects/gcpstream-local/instances/local/tables/orders";

absl::Status FromGrpc(const grpc::Status& status, absl::string_view what) {
  if (status.ok()) return absl::OkStatus();
  return {static_cast<absl::StatusCode>(status.error_code()),
          absl::StrCat(what, ": ", status.error_message())};
}

std::unique_ptr<grpc::ClientContext> Context() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  return context;
}

struct Stores {
  std::unique_ptr<google::spanner::v1::Spanner::Stub> spanner;
  std::string session;
  std::unique_ptr<google::bigtable::v2::Bigtable::Stub> bigtable;
};

// Writes one pulled batch to both stores. Spanner rows are insert-or-update
// and Bigtable cells carry explicit timestamps, so a redelivered batch
// overwrites instead of duplicating.
absl::Status WriteBatch(Stores& stores,
                        const google::protobuf::RepeatedPtrField<
                            google::pubsub::v1::ReceivedMessage>& messages) {
  google::spanner::v1::CommitRequest commit;
  commit.set_session(stores.session);
  commit.mutable_single_use_transaction()->mutable_read_write();
  auto* rows = commit.add_mutations()->mutable_insert_or_update();
  rows->set_table("Orders");
  rows->add_columns("OrderId");
  rows->add_columns("Payload");
  google::bigtable::v2::MutateRowsRequest mutate;
  mutate.set_table_name(kTable);
  for (const auto& received : messages) {
    const auto& message = received.message();
    const std::string& order_id = message.attributes().at("order-id");
    auto* row = rows->add_values();
    row->add_values()->set_string_value(order_id);
    row->add_values()->set_string_value(message.data());
    auto* entry = mutate.add_entries();
    entry->set_row_key(absl::StrCat("order#", order_id));
    auto* cell = entry->add_mutations()->mutable_set_cell();
    cell->set_family_name("o");
    cell->set_column_qualifier("payload");
    cell->set_timestamp_micros(1000);
    cell->set_value(message.data());
  }
  google::spanner::v1::CommitResponse committed;
  if (auto s =
          FromGrpc(stores.spanner->Commit(Context().get(), commit, &committed),
                   "spanner commit");
      !s.ok()) {
    return s;
  }
  auto context = Context();
  auto reader = stores.bigtable->MutateRows(context.get(), mutate);
  google::bigtable::v2::MutateRowsResponse response;
  int written = 0;
  while (reader->Read(&response)) {
    for (const auto& entry : response.entries()) {
      if (entry.status().code() != 0) {
        return absl::InternalError(absl::StrCat(
            "bigtable entry ", entry.index(), ": ", entry.status().message()));
      }
      ++written;
    }
  }
  if (auto s = FromGrpc(reader->Finish(), "bigtable mutate rows"); !s.ok()) {
    return s;
  }
  if (written != messages.size()) {
    return absl::InternalError("bigtable did not report every entry");
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> CountSpannerRows(Stores& stores) {
  google::spanner::v1::ExecuteSqlRequest query;
  query.set_session(stores.session);
  query.set_sql("SELECT COUNT(*) FROM Orders");
  google::spanner::v1::ResultSet result;
  if (auto s =
          FromGrpc(stores.spanner->ExecuteSql(Context().get(), query, &result),
                   "spanner count");
      !s.ok()) {
    return s;
  }
  return std::stoll(result.rows(0).values(0).string_value());
}

absl::StatusOr<int64_t> CountBigtableRows(Stores& stores) {
  google::bigtable::v2::ReadRowsRequest request;
  request.set_table_name(kTable);
  auto context = Context();
  auto reader = stores.bigtable->ReadRows(context.get(), request);
  google::bigtable::v2::ReadRowsResponse response;
  int64_t rows = 0;
  while (reader->Read(&response)) {
    for (const auto& chunk : response.chunks()) {
      if (chunk.commit_row()) ++rows;
    }
  }
  if (auto s = FromGrpc(reader->Finish(), "bigtable read rows"); !s.ok()) {
    return s;
  }
  return rows;
}

absl::Status Run(int orders) {
  auto pubsub = MakeChannel(Service::kPubSub);
  auto spanner = MakeChannel(Service::kSpanner);
  auto bigtable = MakeChannel(Service::kBigtable);
  auto bigtable_admin = MakeChannel(Service::kBigtableAdmin);
  for (const auto* channel : {&pubsub, &spanner, &bigtable, &bigtable_admin}) {
    if (!channel->ok()) return channel->status();
  }
  namespace provision = gcpstream::emulators;
  for (absl::Status s : {
           provision::EnsurePubSubTopic(*pubsub, kProject, kTopic),
           provision::EnsurePubSubSubscription(*pubsub, kProject, kSubscription,
                                               kTopic),
           provision::EnsureSpannerDatabase(
               *spanner, kProject, kInstance, "orders",
               {"CREATE TABLE Orders (OrderId INT64 NOT NULL, Payload "
                "STRING(MAX)) PRIMARY KEY (OrderId)"}),
           provision::EnsureBigtableTable(*bigtable_admin, kProject, kInstance,
                                          "orders", {"o"}),
       }) {
    if (!s.ok()) return s;
  }

  const absl::Time start = absl::Now();
  auto publisher = google::pubsub::v1::Publisher::NewStub(*pubsub);
  for (int first = 0; first < orders; first += 100) {
    google::pubsub::v1::PublishRequest publish;
    publish.set_topic(absl::StrCat("projects/", kProject, "/topics/", kTopic));
    for (int id = first; id < std::min(orders, first + 100); ++id) {
      auto* message = publish.add_messages();
      message->set_data(absl::StrFormat(
          R"({"order_id":%d,"store":"store-%d","amount":%d.%02d})", id, id % 7,
          id % 500, id % 100));
      (*message->mutable_attributes())["order-id"] = absl::StrCat(id);
    }
    google::pubsub::v1::PublishResponse published;
    if (auto s =
            FromGrpc(publisher->Publish(Context().get(), publish, &published),
                     "publish");
        !s.ok()) {
      return s;
    }
  }

  Stores stores{google::spanner::v1::Spanner::NewStub(*spanner), "",
                google::bigtable::v2::Bigtable::NewStub(*bigtable)};
  {
    google::spanner::v1::CreateSessionRequest request;
    request.set_database(kDatabase);
    google::spanner::v1::Session session;
    if (auto s = FromGrpc(
            stores.spanner->CreateSession(Context().get(), request, &session),
            "spanner session");
        !s.ok()) {
      return s;
    }
    stores.session = session.name();
  }

  auto subscriber = google::pubsub::v1::Subscriber::NewStub(*pubsub);
  const std::string subscription =
      absl::StrCat("projects/", kProject, "/subscriptions/", kSubscription);
  std::set<std::string> seen;
  int batches = 0;
  while (static_cast<int>(seen.size()) < orders) {
    if (absl::Now() - start > absl::Minutes(5)) {
      return absl::DeadlineExceededError(
          absl::StrCat("only ", seen.size(), " of ", orders,
                       " orders arrived in 5 minutes"));
    }
    google::pubsub::v1::PullRequest pull;
    pull.set_subscription(subscription);
    pull.set_max_messages(250);
    google::pubsub::v1::PullResponse pulled;
    if (auto s =
            FromGrpc(subscriber->Pull(Context().get(), pull, &pulled), "pull");
        !s.ok()) {
      return s;
    }
    if (pulled.received_messages().empty()) continue;
    if (auto s = WriteBatch(stores, pulled.received_messages()); !s.ok()) {
      return s;
    }
    google::pubsub::v1::AcknowledgeRequest ack;
    ack.set_subscription(subscription);
    for (const auto& received : pulled.received_messages()) {
      ack.add_ack_ids(received.ack_id());
      seen.insert(received.message().attributes().at("order-id"));
    }
    google::protobuf::Empty empty;
    if (auto s = FromGrpc(subscriber->Acknowledge(Context().get(), ack, &empty),
                          "acknowledge");
        !s.ok()) {
      return s;
    }
    ++batches;
  }
  const absl::Duration elapsed = absl::Now() - start;

  auto spanner_rows = CountSpannerRows(stores);
  if (!spanner_rows.ok()) return spanner_rows.status();
  auto bigtable_rows = CountBigtableRows(stores);
  if (!bigtable_rows.ok()) return bigtable_rows.status();
  std::cout << absl::StrFormat(
      "published %d orders to %s\n"
      "pulled %d distinct orders in %d batches, acknowledged after writing\n"
      "spanner %s: %d rows in Orders\n"
      "bigtable %s: %d rows\n"
      "elapsed %s\n",
      orders, kTopic, seen.size(), batches, kDatabase, *spanner_rows, kTable,
      *bigtable_rows, absl::FormatDuration(elapsed));
  if (*spanner_rows != orders || *bigtable_rows != orders) {
    return absl::DataLossError("row counts differ from the orders published");
  }
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Pub/Sub -> Spanner + Bigtable smoke pipeline on emulators"};
  int orders = 1000;
  app.add_option("--orders", orders, "how many orders to publish")
      ->check(CLI::Range(1, 1000000));
  CLI11_PARSE(app, argc, argv);
  absl::Status status = Run(orders);
  if (!status.ok()) {
    std::cerr << "emulator_smoke_pipeline failed: " << status << "\n";
    return 1;
  }
  return 0;
}
