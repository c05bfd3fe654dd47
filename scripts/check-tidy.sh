#!/usr/bin/env bash
# Runs clang-tidy (checks in .clang-tidy) over gcpstream's own .cc files.
# Usage: scripts/check-tidy.sh [build dir]   (needs compile_commands.json)
#
# A file that passed is remembered under <build>/tidy-cache by a hash of its
# text, every header of ours, .clang-tidy and its compile command, so an
# unchanged tree is checked in seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${1:-build}"
clang_tidy="$(command -v clang-tidy || command -v clang-tidy-14)"
cache="$build_dir/tidy-cache"
mkdir -p "$cache"
mapfile -t files < <(git ls-files --cached --others --exclude-standard \
  -- 'src/*.cc' 'examples/*.cc' 'bench/*.cc')
headers_hash="$( (cat .clang-tidy; git ls-files --cached --others --exclude-standard \
  -- 'src/*.h' 'examples/*.h' 'bench/*.h' | sort | xargs cat) | sha256sum | cut -c1-64)"
todo=()
for file in "${files[@]}"; do
  key="$( (echo "$headers_hash"; cat "$file"; grep -F "\"$PWD/$file\"" \
    "$build_dir/compile_commands.json" || true) | sha256sum | cut -c1-64)"
  [[ -f "$cache/$key" ]] || todo+=("$file:$key")
done
export clang_tidy build_dir cache
check_one() {
  local file="${1%%:*}" key="${1##*:}"
  if "$clang_tidy" -p "$build_dir" --quiet "$file" 2>/dev/null; then
    touch "$cache/$key"
  else
    return 1
  fi
}
export -f check_one
if [[ ${#todo[@]} -gt 0 ]]; then
  # Two at a time: the machines this runs on have two cores.
  printf '%s\n' "${todo[@]}" | xargs -P 2 -I{} bash -c 'check_one "$1"' _ {}
fi
echo "clang-tidy: ${#files[@]} files clean (${#todo[@]} checked, the rest cached)"
