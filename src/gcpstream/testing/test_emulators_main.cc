#include "gcpstream/testing/test_emulators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleMock(&argc, argv);
  const int result = RUN_ALL_TESTS();
  gcpstream::testing::StopTestEmulators(/*keep_logs=*/result != 0);
  return result;
}
