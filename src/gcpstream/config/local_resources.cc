#include "gcpstream/config/local_resources.h"

#include <grpcpp/client_context.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/emulators/provisioning.h"
#include "gcpstream/emulators/spanner_query.h"
#include "google/pubsub/v1/pubsub.grpc.pb.h"

namespace gcpstream::config {
namespace {

// The table a CREATE TABLE statement creates, or "".
std::string CreatedTable(absl::string_view ddl) {
  absl::string_view rest = absl::StripLeadingAsciiWhitespace(ddl);
  for (absl::string_view word : {"CREATE", "TABLE"}) {
    if (!absl::StartsWithIgnoreCase(rest, word)) return "";
    rest = absl::StripLeadingAsciiWhitespace(rest.substr(word.size()));
  }
  const size_t end = rest.find_first_of(" (\t\n");
  return std::string(rest.substr(0, end));
}

absl::StatusOr<int64_t> CountMessages(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& name) {
  auto subscriber = google::pubsub::v1::Subscriber::NewStub(channel);
  int64_t count = 0;
  // The emulator answers an empty Pull after its deadline: stop at the
  // first pull that brings nothing.
  while (true) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(2)));
    google::pubsub::v1::PullRequest pull;
    pull.set_subscription(name);
    pull.set_max_messages(1000);
    google::pubsub::v1::PullResponse pulled;
    const grpc::Status status = subscriber->Pull(&context, pull, &pulled);
    if (!status.ok() || pulled.received_messages().empty()) break;
    google::pubsub::v1::AcknowledgeRequest ack;
    ack.set_subscription(name);
    for (const auto& message : pulled.received_messages()) {
      ack.add_ack_ids(message.ack_id());
    }
    count += pulled.received_messages_size();
    grpc::ClientContext ack_context;
    google::protobuf::Empty empty;
    if (!subscriber->Acknowledge(&ack_context, ack, &empty).ok()) break;
  }
  return count;
}

absl::StatusOr<std::string> CountRows(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& database,
    const std::string& table) {
  absl::StatusOr<std::vector<std::vector<std::string>>> rows =
      emulators::QuerySpanner(channel, database,
                              absl::StrCat("SELECT COUNT(*) FROM ", table));
  if (!rows.ok()) return rows.status();
  if (rows->size() != 1 || rows->front().size() != 1) {
    return absl::UnavailableError(
        absl::StrCat("counting the rows of ", table, " returned no count"));
  }
  return rows->front().front();
}

}  // namespace

std::set<emulators::EmulatorKind> LocalResources::Emulators() const {
  std::set<emulators::EmulatorKind> kinds;
  if (!topics.empty() || !subscriptions.empty()) {
    kinds.insert(emulators::EmulatorKind::kPubSub);
  }
  if (!databases.empty()) kinds.insert(emulators::EmulatorKind::kSpanner);
  return kinds;
}

absl::StatusOr<LocalResources> ReadLocalResources(OptionMap& local) {
  LocalResources resources;
  for (absl::Status status :
       {AssignIfSet(local.String("project"), resources.project),
        AssignIfSet(local.StringList("topics"), resources.topics)}) {
    if (!status.ok()) return status;
  }
  absl::StatusOr<std::optional<std::vector<OptionMap>>> subscriptions =
      local.MapList("subscriptions");
  if (!subscriptions.ok()) return subscriptions.status();
  for (OptionMap& entry : subscriptions->value_or(std::vector<OptionMap>{})) {
    LocalResources::Subscription subscription;
    absl::StatusOr<std::string> name = entry.RequiredString("name");
    if (!name.ok()) return name.status();
    absl::StatusOr<std::string> topic = entry.RequiredString("topic");
    if (!topic.ok()) return topic.status();
    subscription.name = *name;
    subscription.topic = *topic;
    for (absl::Status status :
         {AssignIfSet(entry.Bool("ordered"), subscription.ordered),
          entry.CheckNoUnknownKeys()}) {
      if (!status.ok()) return status;
    }
    resources.subscriptions.push_back(std::move(subscription));
  }
  absl::StatusOr<std::optional<std::vector<OptionMap>>> databases =
      local.MapList("spanner-databases");
  if (!databases.ok()) return databases.status();
  for (OptionMap& entry : databases->value_or(std::vector<OptionMap>{})) {
    LocalResources::Database database;
    absl::StatusOr<std::string> instance = entry.RequiredString("instance");
    if (!instance.ok()) return instance.status();
    absl::StatusOr<std::string> name = entry.RequiredString("database");
    if (!name.ok()) return name.status();
    database.instance = *instance;
    database.database = *name;
    for (absl::Status status :
         {AssignIfSet(entry.StringList("ddl"), database.ddl),
          entry.CheckNoUnknownKeys()}) {
      if (!status.ok()) return status;
    }
    for (const std::string& statement : database.ddl) {
      if (std::string table = CreatedTable(statement); !table.empty()) {
        database.tables.push_back(std::move(table));
      }
    }
    resources.databases.push_back(std::move(database));
  }
  if (absl::Status unknown = local.CheckNoUnknownKeys(); !unknown.ok()) {
    return unknown;
  }
  return resources;
}

absl::Status Provision(const LocalResources& resources) {
  if (!resources.topics.empty() || !resources.subscriptions.empty()) {
    auto channel = auth::MakeChannel(auth::Service::kPubSub);
    if (!channel.ok()) return channel.status();
    for (const std::string& topic : resources.topics) {
      if (absl::Status status =
              emulators::EnsurePubSubTopic(*channel, resources.project, topic);
          !status.ok()) {
        return status;
      }
    }
    for (const auto& subscription : resources.subscriptions) {
      if (absl::Status status = emulators::EnsurePubSubSubscription(
              *channel, resources.project, subscription.name,
              subscription.topic, subscription.ordered);
          !status.ok()) {
        return status;
      }
    }
  }
  if (!resources.databases.empty()) {
    auto channel = auth::MakeChannel(auth::Service::kSpanner);
    if (!channel.ok()) return channel.status();
    for (const auto& database : resources.databases) {
      if (absl::Status status = emulators::EnsureSpannerDatabase(
              *channel, resources.project, database.instance, database.database,
              database.ddl);
          !status.ok()) {
        return status;
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> DescribeWhatLanded(
    const LocalResources& resources) {
  std::vector<std::string> lines;
  if (!resources.subscriptions.empty()) {
    auto channel = auth::MakeChannel(auth::Service::kPubSub);
    if (!channel.ok()) return channel.status();
    for (const auto& subscription : resources.subscriptions) {
      absl::StatusOr<int64_t> count = CountMessages(
          *channel, absl::StrCat("projects/", resources.project,
                                 "/subscriptions/", subscription.name));
      if (!count.ok()) return count.status();
      lines.push_back(absl::StrCat("topic ", subscription.topic, ": ", *count,
                                   " messages (subscription ",
                                   subscription.name, ")"));
    }
  }
  if (!resources.databases.empty()) {
    auto channel = auth::MakeChannel(auth::Service::kSpanner);
    if (!channel.ok()) return channel.status();
    for (const auto& database : resources.databases) {
      const std::string name =
          absl::StrCat("projects/", resources.project, "/instances/",
                       database.instance, "/databases/", database.database);
      for (const std::string& table : database.tables) {
        absl::StatusOr<std::string> rows = CountRows(*channel, name, table);
        if (!rows.ok()) return rows.status();
        lines.push_back(absl::StrCat("table ", database.database, ".", table,
                                     ": ", *rows, " rows"));
      }
    }
  }
  return lines;
}

}  // namespace gcpstream::config
