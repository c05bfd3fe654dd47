#include "gcpstream/auth/service_endpoint.h"

namespace gcpstream::auth {

const ServiceEndpoint& EndpointOf(Service service) {
  // Bigtable's admin API is served by the same emulator as its data API.
  static constexpr ServiceEndpoint kPubSub{
      "pubsub", "pubsub.googleapis.com:443", "PUBSUB_EMULATOR_HOST"};
  static constexpr ServiceEndpoint kSpanner{
      "spanner", "spanner.googleapis.com:443", "SPANNER_EMULATOR_HOST"};
  static constexpr ServiceEndpoint kBigtable{
      "bigtable", "bigtable.googleapis.com:443", "BIGTABLE_EMULATOR_HOST"};
  static constexpr ServiceEndpoint kBigtableAdmin{
      "bigtableadmin", "bigtableadmin.googleapis.com:443",
      "BIGTABLE_EMULATOR_HOST"};
  static constexpr ServiceEndpoint kBigQueryStorage{
      // Google's clients honour no BigQuery emulator variable; this one is
      // gcpstream's (docs/bigquery.md).
      "bigquerystorage", "bigquerystorage.googleapis.com:443",
      "BIGQUERY_STORAGE_EMULATOR_HOST"};
  static constexpr ServiceEndpoint kCloudTasks{
      // Google's clients honour no emulator variable for Cloud Tasks; this
      // one is gcpstream's (docs/cloudtasks.md).
      "cloudtasks", "cloudtasks.googleapis.com:443",
      "CLOUD_TASKS_EMULATOR_HOST"};
  switch (service) {
    case Service::kPubSub:
      return kPubSub;
    case Service::kSpanner:
      return kSpanner;
    case Service::kBigtable:
      return kBigtable;
    case Service::kBigtableAdmin:
      return kBigtableAdmin;
    case Service::kBigQueryStorage:
      return kBigQueryStorage;
    case Service::kCloudTasks:
      return kCloudTasks;
  }
  return kPubSub;  // Unreachable: the switch covers every enumerator.
}

}  // namespace gcpstream::auth
