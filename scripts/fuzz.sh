#!/usr/bin/env bash
# Fuzzes the JSON record parser and the destination template renderer with
# libFuzzer under AddressSanitizer and UndefinedBehaviorSanitizer (clang 22
# from deps/apt-packages.txt). Fails on any finding; the crashing input is
# kept in the work directory and its path printed.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]     (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
clang=/usr/lib/llvm-22/bin/clang++
if [[ ! -x $clang ]]; then
  echo "fuzz.sh: $clang is missing; run scripts/setup.sh" >&2
  exit 1
fi
work=${FUZZ_WORK_DIR:-build/fuzz}
mkdir -p "$work"
flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer
       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -Isrc)
# shellcheck disable=SC2207
libs=($(pkg-config --libs absl_status absl_statusor absl_strings \
  absl_time absl_str_format) -lsimdjson)
json_sources=(src/gcpstream/json/json_record.cc src/gcpstream/json/json_scan.cc
              src/gcpstream/json/record_scanner.cc src/gcpstream/json/simdjson_validate.cc
              src/gcpstream/json/json_value.cc src/gcpstream/json/padded_bytes.cc)
build() {  # NAME SOURCES...
  local name=$1
  shift
  "$clang" "${flags[@]}" "$@" "${json_sources[@]}" "${libs[@]}" \
    -o "$work/$name"
}
build json_record_fuzzer fuzz/json_record_fuzzer.cc
build template_fuzzer fuzz/template_fuzzer.cc \
  src/gcpstream/config/destination_template.cc src/gcpstream/config/field_path.cc

seeds=$PWD/fuzz/corpus
status=0
for target in json_record template; do
  corpus="$work/${target}_corpus"
  mkdir -p "$corpus"
  echo "fuzz.sh: ${target}_fuzzer for ${seconds}s"
  if ! (cd "$work" && "./${target}_fuzzer" -max_total_time="$seconds" \
          -max_len=8192 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
          "${target}_corpus" "$seeds/$target" \
          > "${target}_fuzzer.log" 2>&1); then
    echo "fuzz.sh: ${target}_fuzzer found a problem; see $work/${target}_fuzzer.log" >&2
    tail -40 "$work/${target}_fuzzer.log" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|Done" "$work/${target}_fuzzer.log" | tail -2
  fi
done
exit $status
