#ifndef GCPSTREAM_BIGTABLE_BIGTABLE_SINK_TEST_UTIL_H_
#define GCPSTREAM_BIGTABLE_BIGTABLE_SINK_TEST_UTIL_H_

// Shared by the Bigtable sink's unit and emulator tests: a record type,
// its serializer and resolver.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "gcpstream/bigtable/bigtable_sink.h"

namespace gcpstream::bigtable::testing {

// Written with the writer's clock (the default), the server's timestamp,
// or an explicit one.
inline constexpr int64_t kWriterClock = -2;

struct Event {
  std::string table;
  std::string row;
  std::string value;  // "skip" is skipped, "broken" fails serialization.
  std::string family = "cf";
  std::string qualifier = "q";
  int64_t timestamp_micros = kWriterClock;
};

inline connector::Serializer<Event, RowMutationEntry> EventSerializer() {
  return [](const Event& event, const WriterContext&)
             -> absl::StatusOr<std::optional<RowMutationEntry>> {
    if (event.value == "skip") return std::nullopt;
    if (event.value == "broken") {
      return absl::InvalidArgumentError("field 'value' is missing");
    }
    RowMutationEntry entry(event.row);
    if (event.timestamp_micros == kWriterClock) {
      entry.SetCell(event.family, event.qualifier, event.value);
    } else if (event.timestamp_micros == kServerTimestamp) {
      entry.SetCellWithServerTimestamp(event.family, event.qualifier,
                                       event.value);
    } else {
      entry.SetCell(event.family, event.qualifier, event.value,
                    event.timestamp_micros);
    }
    return std::optional<RowMutationEntry>(std::move(entry));
  };
}

inline std::shared_ptr<DestinationResolver<Event, TableDestination>>
EventTableResolver(std::string project, std::string instance) {
  return MakeResolver<Event, TableDestination>(
      [project = std::move(project), instance = std::move(instance)](
          const Event& event,
          const WriterContext&) -> absl::StatusOr<TableDestination> {
        return TableDestination(project, instance, event.table);
      });
}

}  // namespace gcpstream::bigtable::testing

#endif  // GCPSTREAM_BIGTABLE_BIGTABLE_SINK_TEST_UTIL_H_
