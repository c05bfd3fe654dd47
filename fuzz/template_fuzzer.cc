// libFuzzer target: a destination template (the first line) rendered for a
// record (the rest). Parsing either may fail; nothing may crash, and a
// rendering either succeeds or says why. See scripts/fuzz.sh.

#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/time/time.h"
#include "gcpstream/config/destination_template.h"
#include "gcpstream/json/json_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  if (newline == std::string::npos) return 0;
  const absl::StatusOr<gcpstream::config::DestinationTemplate> parsed =
      gcpstream::config::DestinationTemplate::Parse(input.substr(0, newline));
  const absl::StatusOr<gcpstream::json::JsonRecord> record =
      gcpstream::json::JsonRecord::Parse(input.substr(newline + 1));
  if (!parsed.ok() || !record.ok()) return 0;
  for (const absl::Time time :
       {absl::FromUnixSeconds(1796083200), absl::InfinitePast()}) {
    const absl::StatusOr<std::string> rendered = parsed->Render(*record, time);
    if (rendered.ok() && parsed->constant() && *rendered != parsed->text()) {
      std::abort();
    }
    if (!rendered.ok() && rendered.status().message().empty()) std::abort();
  }
  return 0;
}
