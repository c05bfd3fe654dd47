#!/usr/bin/env bash
# The main job: builds the gcpstream command and runs the quickstart
# (examples/quickstart.yaml) with --local: it starts the Pub/Sub and Spanner
# emulators on free loopback ports, creates the topics, subscriptions and
# database the file declares, runs 3000 generated orders through per-region
# topics and a Spanner table, prints what landed in each destination and the
# dead-letter counts, and stops the emulators. Installs what is missing
# first. Extra arguments go to `gcpstream run` (e.g. another pipeline file
# after --).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${GCPSTREAM_BUILD_DIR:-build}"

scripts/setup.sh main-job
if [[ ! -f "$build_dir/build.ninja" ]]; then
  cmake -S . -B "$build_dir" -G Ninja -DGCPSTREAM_WERROR=ON
fi
cmake --build "$build_dir" -j 2 --target gcpstream_cli
if [[ $# -gt 0 ]]; then
  exec "$build_dir/src/gcpstream/cli/gcpstream" run --local "$@"
fi
# The quickstart's dead letters are its own run's only: the previous run's go.
rm -rf /tmp/gcpstream-quickstart/dead-letters
exec "$build_dir/src/gcpstream/cli/gcpstream" run --local examples/quickstart.yaml
