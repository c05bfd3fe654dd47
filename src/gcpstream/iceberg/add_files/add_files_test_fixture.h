#ifndef GCPSTREAM_ICEBERG_ADD_FILES_ADD_FILES_TEST_FIXTURE_H_
#define GCPSTREAM_ICEBERG_ADD_FILES_ADD_FILES_TEST_FIXTURE_H_

// Test-only: the fixture of add_files_test and add_files_commit_test, which
// add pyarrow-written files to tables of the filesystem catalog and of
// Iceberg's reference REST server, and check them with pyiceberg and
// DuckDB. Needs GCPSTREAM_PYTHON, GCPSTREAM_TESTDATA,
// GCPSTREAM_TEST_OUTPUT_ROOT and GCPSTREAM_ICEBERG_REST_JAR.

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "gcpstream/iceberg/add_files/add_files.h"
#include "gcpstream/iceberg/catalog/filesystem_catalog.h"
#include "gcpstream/iceberg/catalog/rest_catalog.h"
#include "gcpstream/iceberg/catalog/rest_fixture.h"
#include "gcpstream/iceberg/io/test_util.h"
#include "gtest/gtest.h"

namespace gcpstream::iceberg::testing {

// The running suite's own output directory (in the build tree), created on
// first use: the test files sharing this fixture share an executable, and
// their ctest tests run in parallel, each in a directory of its own.
inline std::string OutputDir() {
  const ::testing::TestSuite* suite =
      ::testing::UnitTest::GetInstance()->current_test_suite();
  std::string name = suite != nullptr ? suite->name() : "add_files";
  name = name.substr(name.rfind('/') + 1);  // Without "Catalogs/".
  std::string dir =
      absl::StrCat(GCPSTREAM_TEST_OUTPUT_ROOT, "/", name, "_output");
  std::filesystem::create_directories(dir);
  return dir;
}

// The fixtures write_add_files_fixtures.py writes for the suite.
inline std::string FixturesDir() { return OutputDir() + "/fixtures"; }

enum class CatalogKind { kFilesystem, kRest };

// The suite runs against each catalog: the filesystem catalog, and Iceberg's
// reference REST server through RestCatalog. Each test has a table of its
// own in the suite's warehouse.
class AddFilesTest : public ::testing::TestWithParam<CatalogKind> {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(
        std::system(absl::StrCat(GCPSTREAM_PYTHON, " ", GCPSTREAM_TESTDATA,
                                 "/write_add_files_fixtures.py ", FixturesDir())
                        .c_str()),
        0);
  }

  static void TearDownTestSuite() { RestServer().reset(); }

  // One server for the suite's REST runs, started by the first.
  static std::unique_ptr<RestCatalogFixture>& RestServer() {
    static std::unique_ptr<RestCatalogFixture> server;
    return server;
  }

  void SetUp() override {
    std::string name =
        ::testing::UnitTest::GetInstance()->current_test_info()->name();
    name = name.substr(0, name.find('/'));
    table_ = TableIdentifier{{"db"}, name};
    if (GetParam() == CatalogKind::kFilesystem) {
      const std::string warehouse = absl::StrCat(OutputDir(), "/warehouse");
      std::filesystem::remove_all(warehouse + "/db/" + name);
      catalog_ = std::make_unique<FilesystemCatalog>(warehouse);
      return;
    }
    if (RestServer() == nullptr) {
      const std::string warehouse =
          absl::StrCat(OutputDir(), "/rest-warehouse");
      std::filesystem::remove_all(warehouse);
      absl::StatusOr<std::unique_ptr<RestCatalogFixture>> started =
          RestCatalogFixture::Start(GCPSTREAM_ICEBERG_REST_JAR, warehouse);
      ASSERT_TRUE(started.ok()) << started.status();
      RestServer() = *std::move(started);
    }
    RestCatalogOptions options;
    options.uri = RestServer()->uri();
    absl::StatusOr<RestCatalog> rest = RestCatalog::Connect(options);
    ASSERT_TRUE(rest.ok()) << rest.status();
    catalog_ = std::make_unique<RestCatalog>(*std::move(rest));
  }

  static std::string Fixture(const std::string& name) {
    return absl::StrCat(FixturesDir(), "/", name);
  }

  absl::StatusOr<AddFilesResult> Add(const std::vector<std::string>& names,
                                     const AddFilesOptions& options = {}) {
    return AddTo(*catalog_, names, options);
  }

  absl::StatusOr<AddFilesResult> AddTo(Catalog& catalog,
                                       const std::vector<std::string>& names,
                                       const AddFilesOptions& options = {}) {
    std::vector<std::string> paths;
    paths.reserve(names.size());
    for (const std::string& name : names) paths.push_back(Fixture(name));
    return AddFiles(catalog, io_, table_, paths, options);
  }

  static AddFilesOptions Evolving(std::set<EvolutionOption> allowed) {
    AddFilesOptions options;
    options.evolution.options = std::move(allowed);
    return options;
  }

  // What pyiceberg and DuckDB read from the table's current metadata,
  // compared with the rows of the fixtures `added`.
  nlohmann::json Check(const std::vector<std::string>& added) {
    const std::string metadata_file = MetadataFile();
    EXPECT_FALSE(metadata_file.empty());
    std::string command =
        absl::StrCat(GCPSTREAM_PYTHON, " ", GCPSTREAM_TESTDATA,
                     "/check_table.py ", metadata_file);
    for (const std::string& name : added) {
      absl::StrAppend(&command, " ", Fixture(name));
    }
    const std::string out = CommandOutput(command);
    nlohmann::json parsed = nlohmann::json::parse(out, nullptr, false);
    EXPECT_FALSE(parsed.is_discarded()) << out;
    return parsed;
  }

  // The table's current metadata file; empty when there is no table.
  std::string MetadataFile() {
    absl::StatusOr<LoadedTable> table = catalog_->Load(table_);
    return table.ok() ? table->metadata_file : "";
  }

  static std::vector<std::string> ErrorFiles(const AddFilesResult& result) {
    std::vector<std::string> out;
    out.reserve(result.errors.size());
    for (const FileError& error : result.errors) {
      out.push_back(std::filesystem::path(error.file).filename().string());
    }
    return out;
  }

  std::unique_ptr<Catalog> catalog_;
  LocalFileIO io_;
  TableIdentifier table_;
};

// The suffix of each test's name: Filesystem or Rest.
inline std::string CatalogName(
    const ::testing::TestParamInfo<CatalogKind>& param) {
  return param.param == CatalogKind::kFilesystem ? "Filesystem" : "Rest";
}

}  // namespace gcpstream::iceberg::testing

#endif  // GCPSTREAM_ICEBERG_ADD_FILES_ADD_FILES_TEST_FIXTURE_H_
