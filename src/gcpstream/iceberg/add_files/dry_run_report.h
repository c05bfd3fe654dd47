#ifndef GCPSTREAM_ICEBERG_ADD_FILES_DRY_RUN_REPORT_H_
#define GCPSTREAM_ICEBERG_ADD_FILES_DRY_RUN_REPORT_H_

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "gcpstream/iceberg/catalog/catalog.h"
#include "gcpstream/iceberg/evolution/schema_plan.h"
#include "gcpstream/iceberg/evolution/window_schema.h"

namespace gcpstream::iceberg {

// What a real run of the planned `window` would do (docs/iceberg.md, "Dry
// run"): whether it would succeed and why not, the table's creation or
// changes, and each distinct file schema with its changes and verdict.
// `fail_on_incompatible`: the run's incompatible-schema-handling is
// fail-job; `unreadable_files`: files whose footer or schema could not
// be read.
nlohmann::ordered_json DryRunReport(const TableIdentifier& table,
                                    const std::vector<SchemaGroup>& groups,
                                    const WindowSchema& window,
                                    bool fail_on_incompatible,
                                    int64_t unreadable_files);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_ADD_FILES_DRY_RUN_REPORT_H_
