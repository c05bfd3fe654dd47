#!/usr/bin/env bash
# Builds gcpstream and runs every test: unit tests, emulator integration tests
# (the emulators are started and stopped by the tests themselves), and the
# lint checks (clang-format, clang-tidy). Installs what is missing first: the
# build's packages before the build, the test tools (Python environments,
# fake-gcs-server, the Iceberg fixture jar) beside it. Exits non-zero if
# anything fails. Phase times go to standard error.
#
# The tests that must run one at a time (label `timing`: crash, chaos,
# scale-out) are the longest chain of the run, so they are built first and
# run while the rest of the tree builds at a lower priority; the other tests
# wait for the build, then run several at a time (GCPSTREAM_TEST_JOBS,
# default 4: most of them wait on emulators, not on the CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${GCPSTREAM_BUILD_DIR:-build}"
test_jobs="${GCPSTREAM_TEST_JOBS:-4}"
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
cmake --build "$build_dir" -j 2 --target gcpstream_timing_tests
phase "build of the timing tests"
if ! wait "$tools_pid"; then
  cat "$tools_log" >&2
  echo "test.sh: installing the test tools failed (above)" >&2
  exit 1
fi
phase "set-up of the test tools"

# Kept emulator logs of failed tests land in the build tree.
export GCPSTREAM_EMULATOR_LOG_DIR="$PWD/$build_dir/emulator-logs"
mkdir -p "$GCPSTREAM_EMULATOR_LOG_DIR"
# ctest starts now: the timing tests run, the others wait for the build's
# exit status in this file (the test wait_for_build).
export GCPSTREAM_WAIT_FOR_BUILD="$PWD/$build_dir/build-exit-status"
rm -f "$GCPSTREAM_WAIT_FOR_BUILD"
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error \
  -j "$test_jobs" &
ctest_pid=$!
build_status=0
nice -n 10 cmake --build "$build_dir" -j 2 || build_status=$?
echo "$build_status" > "$GCPSTREAM_WAIT_FOR_BUILD"
phase "build"
status=0
wait "$ctest_pid" || status=$?
phase "tests"
if [[ $build_status -ne 0 ]]; then exit "$build_status"; fi
exit "$status"
