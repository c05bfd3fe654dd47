#!/usr/bin/env bash
# Builds the CLI's Debian package with cpack, unpacks it into a scratch root
# (no root rights needed, nothing installed on the machine) and runs what it
# holds: `gcpstream --version` and `gcpstream validate` on the quickstart.
#
#   scripts/test-deb-package.sh BUILD_DIR WORK_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=$(realpath "$1")
work_dir=$(realpath -m "$2")
rm -rf "$work_dir"
mkdir -p "$work_dir"

fail() { echo "test-deb-package: $*" >&2; exit 1; }

(cd "$build_dir" && cpack -G DEB -B "$work_dir/out") > "$work_dir/cpack.log" 2>&1 \
  || { cat "$work_dir/cpack.log" >&2; fail "cpack failed"; }
version=$(sed -n 's/^project(gcpstream VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
deb="$work_dir/out/gcpstream_${version}_amd64.deb"
[[ -f "$deb" ]] || fail "no $deb (cpack made: $(ls "$work_dir/out"))"

# Only the CLI, at /usr/bin, with the shared libraries it loads as
# dependencies.
contents=$(dpkg-deb -c "$deb" | awk '{print $NF}' | grep -v '/$')
[[ "$contents" == "./usr/bin/gcpstream" ]] \
  || fail "the package holds more or other than ./usr/bin/gcpstream: $contents"
depends=$(dpkg-deb -f "$deb" Depends)
for library in libgrpc++ libprotobuf libabsl libyaml-cpp libcurl; do
  [[ "$depends" == *"$library"* ]] || fail "Depends lacks $library: $depends"
done
[[ "$(dpkg-deb -f "$deb" Package)" == gcpstream ]] || fail "package name"
[[ "$(dpkg-deb -f "$deb" Version)" == "$version" ]] || fail "package version"

dpkg-deb -x "$deb" "$work_dir/root"
cli="$work_dir/root/usr/bin/gcpstream"
if file "$cli" | grep -q "not stripped"; then fail "the binary is not stripped"; fi
[[ "$("$cli" --version)" == "$version" ]] || fail "--version: $("$cli" --version)"
"$cli" validate examples/quickstart.yaml > "$work_dir/validate.log" 2>&1 \
  || { cat "$work_dir/validate.log" >&2; fail "validate refused the quickstart"; }
# A broken file is still refused with its line and column.
printf 'name: broken\nsources: [\n' > "$work_dir/broken.yaml"
if "$cli" validate "$work_dir/broken.yaml" > "$work_dir/broken.log" 2>&1; then
  fail "validate accepted a broken file"
fi
grep -q "broken.yaml:" "$work_dir/broken.log" || fail "no file:line in $(cat "$work_dir/broken.log")"
echo "test-deb-package: $(basename "$deb") ($(du -h "$deb" | cut -f1)) installs and runs"
