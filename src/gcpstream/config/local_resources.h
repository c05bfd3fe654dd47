#ifndef GCPSTREAM_CONFIG_LOCAL_RESOURCES_H_
#define GCPSTREAM_CONFIG_LOCAL_RESOURCES_H_

#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/config/option_map.h"
#include "gcpstream/emulators/emulator_kind.h"

namespace gcpstream::config {

// What a pipeline file declares for `gcpstream run --local`: the topics,
// subscriptions and Spanner databases to create on the emulators before the
// run, and to count after it. Ignored without --local.
//
//   local:
//     project: shop                      # for the entries below
//     topics: [orders-eu, orders-us]
//     subscriptions:
//       - {name: orders-eu-all, topic: orders-eu, ordered: true}
//     spanner-databases:
//       - {instance: local, database: orders, ddl: ["CREATE TABLE ..."]}
struct LocalResources {
  struct Subscription {
    std::string name;
    std::string topic;
    bool ordered = false;
  };
  struct Database {
    std::string instance;
    std::string database;
    std::vector<std::string> ddl;
    std::vector<std::string> tables;  // From the CREATE TABLE statements.
  };
  std::string project = "local-project";
  std::vector<std::string> topics;
  std::vector<Subscription> subscriptions;
  std::vector<Database> databases;

  // The emulators these resources live on.
  std::set<emulators::EmulatorKind> Emulators() const;
};

absl::StatusOr<LocalResources> ReadLocalResources(OptionMap& local);

// Creates everything (existing resources are left as they are), through the
// endpoints the *_EMULATOR_HOST variables name.
absl::Status Provision(const LocalResources& resources);

// One line per subscription (messages waiting in it, pulled and
// acknowledged to count them) and per declared table (rows).
absl::StatusOr<std::vector<std::string>> DescribeWhatLanded(
    const LocalResources& resources);

}  // namespace gcpstream::config

#endif  // GCPSTREAM_CONFIG_LOCAL_RESOURCES_H_
