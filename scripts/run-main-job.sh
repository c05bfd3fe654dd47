#!/usr/bin/env bash
# The main job: builds gcpstream, starts the Pub/Sub, Spanner and Bigtable
# emulators on free loopback ports, runs the Pub/Sub -> Spanner + Bigtable
# smoke pipeline against them, prints what landed, and stops the emulators.
# Installs what is missing first. Extra arguments go to the pipeline
# (e.g. --orders 10000).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${GCPSTREAM_BUILD_DIR:-build}"

scripts/setup.sh
if [[ ! -f "$build_dir/build.ninja" ]]; then
  cmake -S . -B "$build_dir" -G Ninja -DGCPSTREAM_WERROR=ON
fi
cmake --build "$build_dir" -j 2 --target gcpstream_emulators_tool emulator_smoke_pipeline
exec "$build_dir/src/gcpstream/emulators/gcpstream-emulators" exec -- \
  "$build_dir/examples/emulator_smoke_pipeline/emulator_smoke_pipeline" "$@"
