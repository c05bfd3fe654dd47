#ifndef GCPSTREAM_BIGTABLE_TABLE_DESTINATION_H_
#define GCPSTREAM_BIGTABLE_TABLE_DESTINATION_H_

#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gcpstream/base/destination.h"

namespace gcpstream::bigtable {

// A Bigtable table a sink writes to; one batcher per active table.
struct TableDestination : DestinationIdentity<TableDestination> {
  TableDestination() = default;
  TableDestination(std::string project_id, std::string instance_id,
                   std::string table_id)
      : project(std::move(project_id)),
        instance(std::move(instance_id)),
        table(std::move(table_id)) {}

  std::string project;
  std::string instance;
  std::string table;

  // "projects/<p>/instances/<i>".
  std::string InstanceName() const {
    return absl::StrCat("projects/", project, "/instances/", instance);
  }
  // "projects/<p>/instances/<i>/tables/<t>".
  std::string ResourceName() const {
    return absl::StrCat(InstanceName(), "/tables/", table);
  }
  std::tuple<absl::string_view, absl::string_view, absl::string_view>
  IdentityFields() const {
    return {project, instance, table};
  }
};

}  // namespace gcpstream::bigtable

#endif  // GCPSTREAM_BIGTABLE_TABLE_DESTINATION_H_
