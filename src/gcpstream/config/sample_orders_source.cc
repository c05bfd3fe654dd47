// `type: sample-orders`: a bounded, deterministic stream of generated shop
// orders for demos and the quickstart, with deliberate defects so that a
// pipeline's failure handling shows. Order i (from 0):
//   {"order_id": 100000 + i, "region": "eu"|"us"|"asia" (i % 3),
//    "customer_id": "customer-<i % 97>", "amount": "<(i % 500) + 1>.99",
//    "placed_at": 2026-12-01T00:00:00Z + i seconds (RFC 3339)}
// except that
//   - every 101st order (i % 101 == 100) has no "region";
//   - every 250th order (i % 250 == 249) has a negative amount;
//   - every 400th order (i % 400 == 398) repeats the previous order's id.
// See docs/pipeline-yaml.md.

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gcpstream/config/connector_registry.h"
#include "gcpstream/runtime/connectors/generator_source.h"

namespace gcpstream::config {
namespace {

Record SampleOrder(int64_t i) {
  static constexpr const char* kRegions[] = {"eu", "us", "asia"};
  const int64_t id = i % 400 == 398 ? 100000 + i - 1 : 100000 + i;
  // Keys in name order, as a JSON library that sorts them would write them;
  // no value needs escaping.
  std::string text = absl::StrCat(
      R"({"amount":")", i % 250 == 249 ? "-" : "", (i % 500) + 1,
      R"(.99","customer_id":"customer-)", i % 97, R"(","order_id":)", id,
      R"(,"placed_at":")",
      absl::FormatTime(absl::RFC3339_sec, absl::FromUnixSeconds(1796083200 + i),
                       absl::UTCTimeZone()),
      "\"");
  if (i % 101 != 100) {
    absl::StrAppend(&text, R"(,"region":")", kRegions[i % 3], "\"");
  }
  text += '}';
  absl::StatusOr<Record> order = Record::Parse(text);
  // The text above is valid JSON by construction.
  return order.ok() ? *std::move(order) : Record();
}

absl::StatusOr<std::shared_ptr<runtime::Source<Record>>> SampleOrders(
    OptionMap& options, const BuildEnvironment& environment) {
  runtime::GeneratorOptions generator;
  generator.count = 3000;
  for (absl::Status status :
       {AssignIfSet(options.Int("count", 0, 1'000'000'000), generator.count),
        AssignIfSet(options.Double("records-per-second"),
                    generator.records_per_second)}) {
    if (!status.ok()) return status;
  }
  auto source = runtime::GeneratorSource<Record>::Create(
      environment.name, SampleOrder, generator);
  if (!source.ok()) {
    return ConfigError(
        options.position(),
        absl::StrCat(options.what(), ": ", source.status().message()));
  }
  return std::shared_ptr<runtime::Source<Record>>(*std::move(source));
}

const RegisterSource kSampleOrders("sample-orders", SampleOrders);

}  // namespace
}  // namespace gcpstream::config
