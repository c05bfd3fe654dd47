#ifndef GCPSTREAM_BIGQUERY_TABLE_DESTINATION_H_
#define GCPSTREAM_BIGQUERY_TABLE_DESTINATION_H_

#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gcpstream/base/destination.h"

namespace gcpstream::bigquery {

// What a resolver returns for a record it cannot route to any table (a
// tenant it does not know, a day outside the retention): the record goes
// to the failure handler with destination "unresolved", `reason` as its
// status and `payload` as its payload, before it is serialized, and no
// table state is made for it. A resolver's error, by contrast, fails the
// job.
struct UnroutableRecord {
  std::string payload;
  std::string reason;
};

// The destination of every unroutable record.
inline constexpr char kUnresolvedDestination[] = "unresolved";

// A BigQuery table the sink writes to, or an unroutable record's verdict.
struct TableDestination : DestinationIdentity<TableDestination> {
  TableDestination() = default;
  TableDestination(std::string project_id, std::string dataset_id,
                   std::string table_id)
      : project(std::move(project_id)),
        dataset(std::move(dataset_id)),
        table(std::move(table_id)) {}
  // The resolver's verdict that `record` goes nowhere.
  static TableDestination Unroutable(UnroutableRecord record) {
    TableDestination destination;
    destination.unroutable_record =
        std::make_shared<const UnroutableRecord>(std::move(record));
    return destination;
  }

  std::string project;
  std::string dataset;
  std::string table;
  std::shared_ptr<const UnroutableRecord> unroutable_record;

  bool unroutable() const { return unroutable_record != nullptr; }
  // "projects/<p>/datasets/<d>/tables/<t>" ("unresolved" for an
  // unroutable record).
  std::string ResourceName() const {
    if (unroutable()) return kUnresolvedDestination;
    return absl::StrCat("projects/", project, "/datasets/", dataset, "/tables/",
                        table);
  }
  // The table's default stream.
  std::string DefaultStream() const {
    return absl::StrCat(ResourceName(), "/streams/_default");
  }
  // "<p>.<d>.<t>", as users write it.
  std::string Spec() const {
    return absl::StrCat(project, ".", dataset, ".", table);
  }
  std::tuple<absl::string_view, absl::string_view, absl::string_view>
  IdentityFields() const {
    return {project, dataset, table};
  }
};

// "project.dataset.table" (or "project:dataset.table", the bq tool's
// form). The error says which part is missing or invalid.
absl::StatusOr<TableDestination> ParseTableSpec(absl::string_view spec);

// Checks one part of a table's name: projects are 6 to 30 characters of
// lower-case letters, digits and '-' (or a domain-scoped "example.com:p"),
// datasets 1 to 1024 letters, digits and '_', tables 1 to 1024 characters
// without '/', '.' or control characters. `what` names the part.
absl::Status CheckTableNamePart(absl::string_view value,
                                absl::string_view what);

}  // namespace gcpstream::bigquery

#endif  // GCPSTREAM_BIGQUERY_TABLE_DESTINATION_H_
