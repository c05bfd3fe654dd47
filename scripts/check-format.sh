#!/usr/bin/env bash
# Fails if any of gcpstream's C++ sources is not clang-formatted.
# Usage: scripts/check-format.sh [clang-format binary]
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format="${1:-clang-format}"
mapfile -t files < <(git ls-files --cached --others --exclude-standard \
  -- 'src/*.h' 'src/*.cc' 'examples/*.h' 'examples/*.cc' 'bench/*.h' 'bench/*.cc')
if [[ ${#files[@]} -eq 0 ]]; then exit 0; fi
"$clang_format" --dry-run --Werror "${files[@]}"
echo "clang-format: ${#files[@]} files clean"
