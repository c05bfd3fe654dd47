#ifndef GCPSTREAM_CONFIG_LOCAL_RESOURCES_H_
#define GCPSTREAM_CONFIG_LOCAL_RESOURCES_H_

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gcpstream/config/connector_registry.h"
#include "gcpstream/config/option_map.h"
#include "gcpstream/emulators/emulator_kind.h"

namespace gcpstream::config {

// What a pipeline file declares for `gcpstream run --local`: resources to
// create on the emulators before the run, and to count after it. Ignored
// without --local. Each connector reads its own keys (LocalResource,
// registered with the connector):
//
//   local:
//     project: shop                      # for the entries below
//     topics: [orders-eu, orders-us]     # pubsub
//     subscriptions:                     # pubsub
//       - {name: orders-eu-all, topic: orders-eu, ordered: true}
//     spanner-databases:                 # spanner
//       - {instance: local, database: orders, ddl: ["CREATE TABLE ..."]}
struct LocalResources {
  std::string project = "local-project";
  // In connector-name order.
  std::vector<std::shared_ptr<const LocalResource>> parts;

  // The emulators these resources live on.
  std::set<emulators::EmulatorKind> Emulators() const;
  // Every declared resource, one line each.
  std::vector<std::string> Declared() const;
};

absl::StatusOr<LocalResources> ReadLocalResources(
    OptionMap& local,
    const ConnectorRegistry& registry = ConnectorRegistry::Global());

// Creates everything (existing resources are left as they are), through the
// endpoints the *_EMULATOR_HOST variables name.
absl::Status Provision(const LocalResources& resources);

// One line per declared resource that holds data: messages waiting in a
// subscription (pulled and acknowledged to count them), rows in a table.
absl::StatusOr<std::vector<std::string>> DescribeWhatLanded(
    const LocalResources& resources);

}  // namespace gcpstream::config

#endif  // GCPSTREAM_CONFIG_LOCAL_RESOURCES_H_
