// Registers existing Parquet files in an Iceberg table from C++, without
// rewriting them: one append snapshot for all of them, the table's schema
// widened by new columns when a file brings some.
//
//   iceberg_add_files --catalog /data/warehouse --table db.orders
//       FILE.parquet...
//
// --catalog is a filesystem catalog's warehouse directory (or gs:// prefix),
// or a REST catalog's https:// URI. The table is created when missing. A
// file that cannot be registered (unreadable, a schema the table cannot
// take) is reported and left out; the others are still added. Exit status:
// 0 all added, 3 some files refused, 1 the run failed.

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "gcpstream/iceberg/add_files/add_files.h"
#include "gcpstream/iceberg/catalog/catalog_spec.h"
#include "gcpstream/iceberg/io/gcs_file_io.h"

namespace {

namespace iceberg = gcpstream::iceberg;

int Run(const std::string& catalog_location, const std::string& table_name,
        const std::vector<std::string>& files) {
  absl::StatusOr<iceberg::TableIdentifier> table =
      iceberg::ParseTableIdentifier(table_name);
  if (!table.ok()) {
    std::cerr << "--table: " << table.status().message() << "\n";
    return 2;
  }
  iceberg::CatalogSpec spec;
  spec.catalog = catalog_location;
  absl::StatusOr<std::unique_ptr<iceberg::Catalog>> catalog =
      iceberg::OpenCatalog(spec);
  if (!catalog.ok()) {
    std::cerr << "--catalog: " << catalog.status().message() << "\n";
    return 1;
  }
  iceberg::AddFilesOptions options;
  options.evolution.options.insert(
      iceberg::EvolutionOption::kAllowFieldAddition);
  // Local paths and gs:// objects alike.
  iceberg::SchemeFileIO io;
  absl::StatusOr<iceberg::AddFilesResult> result =
      iceberg::AddFiles(**catalog, io, *table, files, options);
  if (!result.ok()) {
    std::cerr << "add-files failed: " << result.status().message() << "\n";
    return 1;
  }
  for (const iceberg::FileError& error : result->errors) {
    std::cerr << "not added: " << error.file << ": " << error.error << "\n";
  }
  if (result->snapshot.has_value()) {
    std::cout << "added " << result->counters.data_files_added
              << " files in snapshot " << result->snapshot->snapshot_id
              << "; table metadata: " << result->metadata_file << "\n";
  } else {
    std::cout << "no file added\n";
  }
  return result->errors.empty() ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Register Parquet files in an Iceberg table"};
  std::string catalog;
  std::string table;
  std::vector<std::string> files;
  app.add_option("--catalog", catalog, "warehouse directory or REST URI")
      ->required();
  app.add_option("--table", table, "namespace.name")->required();
  app.add_option("files", files, "Parquet files")->required();
  CLI11_PARSE(app, argc, argv);
  return Run(catalog, table, files);
}
