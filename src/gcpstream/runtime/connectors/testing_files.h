#ifndef GCPSTREAM_RUNTIME_CONNECTORS_TESTING_FILES_H_
#define GCPSTREAM_RUNTIME_CONNECTORS_TESTING_FILES_H_

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <system_error>

#include "gtest/gtest.h"

namespace gcpstream::runtime {

// Test helpers for connectors that read or write local files.

// An empty directory private to the running test.
inline std::string FreshTestDirectory() {
  const ::testing::TestInfo* test =
      ::testing::UnitTest::GetInstance()->current_test_info();
  std::string path = ::testing::TempDir() + "/gcpstream-" +
                     std::to_string(getpid()) + "-" + test->test_suite_name() +
                     "-" + test->name();
  std::error_code error;
  std::filesystem::remove_all(path, error);
  std::filesystem::create_directories(path, error);
  EXPECT_FALSE(error) << path << ": " << error.message();
  return path;
}

inline void WriteTestFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  EXPECT_TRUE(out.good()) << path;
}

inline std::string ReadTestFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_CONNECTORS_TESTING_FILES_H_
