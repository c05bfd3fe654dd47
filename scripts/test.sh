#!/usr/bin/env bash
# Builds gcpstream and runs every test: unit tests, emulator integration tests
# (the emulators are started and stopped by the tests themselves), and the
# lint checks (clang-format, clang-tidy). Installs what is missing first.
# Exits non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${GCPSTREAM_BUILD_DIR:-build}"

scripts/setup.sh
if [[ ! -f "$build_dir/build.ninja" ]]; then
  cmake -S . -B "$build_dir" -G Ninja -DGCPSTREAM_WERROR=ON
fi
cmake --build "$build_dir" -j 2

# Kept emulator logs of failed tests land in the build tree.
export GCPSTREAM_EMULATOR_LOG_DIR="$PWD/$build_dir/emulator-logs"
mkdir -p "$GCPSTREAM_EMULATOR_LOG_DIR"
ctest --test-dir "$build_dir" --output-on-failure -j 2 --no-tests=error
