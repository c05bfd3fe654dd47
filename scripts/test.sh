#!/usr/bin/env bash
# Builds gcpstream and runs every test: unit tests, emulator integration tests
# (the emulators are started and stopped by the tests themselves), and the
# lint checks (clang-format, clang-tidy). Installs what is missing first: the
# build's packages before the build, the test tools (Python environments,
# fake-gcs-server, the Iceberg fixture jar) beside it. Exits non-zero if
# anything fails. Phase times go to standard error.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${GCPSTREAM_BUILD_DIR:-build}"
started=$SECONDS
phase() { echo "test.sh: $1 done at $((SECONDS - started)) s" >&2; }

scripts/setup.sh build
phase "set-up for the build"
mkdir -p "$build_dir"
tools_log="$build_dir/setup-test-tools.log"
scripts/setup.sh test-tools > "$tools_log" 2>&1 &
tools_pid=$!
if [[ ! -f "$build_dir/build.ninja" ]]; then
  cmake -S . -B "$build_dir" -G Ninja -DGCPSTREAM_WERROR=ON
fi
cmake --build "$build_dir" -j 2
phase "build"
if ! wait "$tools_pid"; then
  cat "$tools_log" >&2
  echo "test.sh: installing the test tools failed (above)" >&2
  exit 1
fi
phase "set-up of the test tools"

# Kept emulator logs of failed tests land in the build tree.
export GCPSTREAM_EMULATOR_LOG_DIR="$PWD/$build_dir/emulator-logs"
mkdir -p "$GCPSTREAM_EMULATOR_LOG_DIR"
ctest --test-dir "$build_dir" --output-on-failure -j 2 --no-tests=error
phase "tests"
