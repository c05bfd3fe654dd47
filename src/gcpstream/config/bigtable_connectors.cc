// `type: bigtable` for pipeline files: each record becomes one row mutation
// of a table (a destination template): a row key rendered from the record,
// and one cell per mapped column. See docs/bigtable.md.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gcpstream/bigtable/bigtable_sink.h"
#include "gcpstream/config/connector_registry.h"
#include "gcpstream/config/destination_template.h"
#include "gcpstream/config/failure_handler_config.h"
#include "gcpstream/config/field_path.h"

namespace gcpstream::config {
namespace {

using bigtable::RowMutationEntry;
using bigtable::TableDestination;

// Which timestamp a record's cells get.
enum class CellTimestamp {
  // The record's event time (whole milliseconds): a replay rewrites the
  // same versions, so each cell ends with one version per record.
  kEventTime,
  // The writer's clock when it takes the record: a replay after a restart
  // may add a second version.
  kWriterClock,
  // The server's clock on arrival: not idempotent (docs/bigtable.md).
  kServer,
};
inline constexpr EnumSpelling<CellTimestamp> kCellTimestamps[] = {
    {"event-time", CellTimestamp::kEventTime},
    {"writer-clock", CellTimestamp::kWriterClock},
    {"server", CellTimestamp::kServer}};
inline constexpr EnumOption<CellTimestamp> kCellTimestampOption(
    "cell-timestamp", kCellTimestamps);

struct Column {
  std::string family;
  std::string qualifier;
  FieldPath field;
};

struct RowMapping {
  std::string project;
  std::string instance;
  DestinationTemplate table;
  DestinationTemplate row_key;
  CellTimestamp timestamp = CellTimestamp::kWriterClock;
  std::vector<Column> columns = {};
};

// A field's value as cell bytes: a string as is, anything else as its JSON
// text. Null: no cell.
std::optional<std::string> CellValue(const json::JsonValue& value) {
  if (value.type() == json::JsonType::kNull) return std::nullopt;
  return PayloadText(value);
}

absl::StatusOr<std::optional<RowMutationEntry>> ToEntry(
    const RowMapping& mapping, const Record& record,
    const WriterContext& context) {
  const absl::Time event_time =
      context.event_time.value_or(absl::InfinitePast());
  if (!mapping.table.constant()) {
    absl::StatusOr<std::string> table =
        mapping.table.Render(record, event_time);
    if (!table.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("option 'table' ('", mapping.table.text(),
                       "'): ", table.status().message()));
    }
  }
  absl::StatusOr<std::string> row_key =
      mapping.row_key.Render(record, event_time);
  if (!row_key.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("option 'row-key' ('", mapping.row_key.text(),
                     "'): ", row_key.status().message()));
  }
  RowMutationEntry entry(*std::move(row_key));
  std::optional<int64_t> micros;
  if (mapping.timestamp == CellTimestamp::kEventTime) {
    if (!context.event_time.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the record has no event time, and option '",
          kCellTimestampOption.key(), "' is '",
          kCellTimestampOption.Name(CellTimestamp::kEventTime),
          "'; give the source an event-time field, or use '",
          kCellTimestampOption.Name(CellTimestamp::kWriterClock), "'"));
    }
    micros = absl::ToUnixMillis(*context.event_time) * 1000;
    if (*micros < 0) {
      return absl::InvalidArgumentError(
          "the record's event time is before 1970, which Bigtable cannot "
          "store as a cell timestamp");
    }
  }
  for (const Column& column : mapping.columns) {
    absl::StatusOr<json::JsonValue> field = column.field.Find(record);
    if (!field.ok()) return field.status();
    std::optional<std::string> value = CellValue(*field);
    if (!value.has_value()) continue;
    switch (mapping.timestamp) {
      case CellTimestamp::kEventTime:
        entry.SetCell(column.family, column.qualifier, *std::move(value),
                      *micros);
        break;
      case CellTimestamp::kWriterClock:
        entry.SetCell(column.family, column.qualifier, *std::move(value));
        break;
      case CellTimestamp::kServer:
        entry.SetCellWithServerTimestamp(column.family, column.qualifier,
                                         *std::move(value));
        break;
    }
  }
  // Every mapped field null: nothing to write.
  if (entry.mutation_count() == 0) return std::nullopt;
  return std::optional<RowMutationEntry>(std::move(entry));
}

absl::StatusOr<DestinationTemplate> ReadTableTemplate(OptionMap& options,
                                                      absl::string_view key) {
  absl::StatusOr<std::string> text = options.RequiredString(key);
  if (!text.ok()) return text.status();
  absl::StatusOr<DestinationTemplate> parsed =
      DestinationTemplate::Parse(*text);
  if (!parsed.ok()) {
    return ConfigError(options.PositionOf(key),
                       absl::StrCat(options.what(), ": option '", key,
                                    "': ", parsed.status().message()));
  }
  return parsed;
}

// `columns`: qualifier -> field, in the family of option `family`; a key
// written "family:qualifier" names its own family.
absl::StatusOr<RowMapping> ReadRowMapping(OptionMap& options) {
  RowMapping mapping;
  absl::StatusOr<std::string> project = RequiredProject(options);
  if (!project.ok()) return project.status();
  absl::StatusOr<std::string> instance = options.RequiredString("instance");
  if (!instance.ok()) return instance.status();
  mapping.project = *project;
  mapping.instance = *instance;
  absl::StatusOr<DestinationTemplate> table =
      ReadTableTemplate(options, "table");
  if (!table.ok()) return table.status();
  mapping.table = *std::move(table);
  absl::StatusOr<DestinationTemplate> row_key =
      ReadTableTemplate(options, "row-key");
  if (!row_key.ok()) return row_key.status();
  mapping.row_key = *std::move(row_key);
  if (absl::Status status =
          AssignIfSet(options.Enum(kCellTimestampOption), mapping.timestamp);
      !status.ok()) {
    return status;
  }
  absl::StatusOr<std::optional<std::string>> family = options.String("family");
  if (!family.ok()) return family.status();
  absl::StatusOr<std::optional<OptionMap>> columns = options.Map("columns");
  if (!columns.ok()) return columns.status();
  if (!columns->has_value() || (*columns)->Keys().empty()) {
    return ConfigError(
        options.position(),
        absl::StrCat(options.what(),
                     ": option 'columns' is required: a mapping of column "
                     "qualifiers (or family:qualifier) to record fields"));
  }
  for (const std::string& key : (*columns)->Keys()) {
    Column column;
    const size_t colon = key.find(':');
    if (colon != std::string::npos) {
      column.family = key.substr(0, colon);
      column.qualifier = key.substr(colon + 1);
    } else if (family->has_value()) {
      column.family = **family;
      column.qualifier = key;
    } else {
      return ConfigError(
          (*columns)->PositionOf(key),
          absl::StrCat((*columns)->what(), ": column '", key,
                       "' has no family: set option 'family', or write the "
                       "key as family:qualifier"));
    }
    if (column.family.empty()) {
      return ConfigError((*columns)->PositionOf(key),
                         absl::StrCat((*columns)->what(), ": column '", key,
                                      "' has an empty family"));
    }
    absl::StatusOr<std::string> text = (*columns)->RequiredString(key);
    if (!text.ok()) return text.status();
    absl::StatusOr<FieldPath> path = FieldPath::Parse(*text);
    if (!path.ok()) {
      return ConfigError((*columns)->PositionOf(key),
                         absl::StrCat((*columns)->what(), ": column '", key,
                                      "': ", path.status().message()));
    }
    column.field = *std::move(path);
    mapping.columns.push_back(std::move(column));
  }
  return mapping;
}

absl::StatusOr<std::shared_ptr<runtime::Sink<Record>>> BigtableSink(
    OptionMap& options, const BuildEnvironment& environment) {
  bigtable::BigtableSinkOptions sink;
  sink.name = environment.name;
  absl::StatusOr<RowMapping> mapping = ReadRowMapping(options);
  if (!mapping.ok()) return mapping.status();
  if (absl::Status read =
          bigtable::BigtableSinkOptionTable().Read(options, sink);
      !read.ok()) {
    return read;
  }
  if (absl::Status valid = bigtable::CheckBigtableSinkOptions(sink);
      !valid.ok()) {
    return ConfigError(options.position(),
                       absl::StrCat(options.what(), ": ", valid.message()));
  }
  absl::StatusOr<FailureHandlerSpec> handler = ReadFailureHandler(options);
  if (!handler.ok()) return handler.status();
  auto shared = std::make_shared<const RowMapping>(*std::move(mapping));
  bigtable::BigtableSink<Record>::SerializerType serializer =
      [shared](const Record& record, const WriterContext& context)
      -> absl::StatusOr<std::optional<RowMutationEntry>> {
    auto entry = ToEntry(*shared, record, context);
    if (!entry.ok()) return WithRecord(entry.status(), record);
    return entry;
  };
  auto factory = MakeFailureHandlerFactory<bigtable::BigtableFailedElement>(
      *std::move(handler));
  if (shared->table.constant()) {
    return std::make_shared<bigtable::BigtableSink<Record>>(
        sink,
        TableDestination(shared->project, shared->instance,
                         shared->table.text()),
        std::move(serializer), std::move(factory));
  }
  auto resolver = MakeResolver<Record, TableDestination>(
      [shared](
          const Record& record,
          const WriterContext& context) -> absl::StatusOr<TableDestination> {
        absl::StatusOr<std::string> table = shared->table.Render(
            record, context.event_time.value_or(absl::InfinitePast()));
        // A record whose table cannot be named is refused by the serializer
        // (routed per the failure handler); its failure names the template.
        return TableDestination(shared->project, shared->instance,
                                table.ok() ? *table : shared->table.text());
      });
  return std::make_shared<bigtable::BigtableSink<Record>>(
      sink, std::move(resolver), std::move(serializer), std::move(factory));
}

const RegisterSink kBigtableSink("bigtable", BigtableSink,
                                 {emulators::EmulatorKind::kBigtable});

}  // namespace
}  // namespace gcpstream::config
