#!/usr/bin/env bash
# Installs a built gcpstream into a scratch prefix and builds examples/cpp
# against it, out of tree, the way a user would: once with
# find_package(gcpstream CONFIG), once with pkg-config. Nothing of the source
# or build tree may leak into the installed package.
#
#   scripts/build-installed-examples.sh BUILD_DIR WORK_DIR
#
# Leaves WORK_DIR/prefix (the installed tree), WORK_DIR/cmake/<example> and
# WORK_DIR/pkg-config/<example>.
set -euo pipefail
cd "$(dirname "$0")/.."
source_dir=$(pwd)
build_dir=$(realpath "$1")
work_dir=$(realpath -m "$2")
prefix="$work_dir/prefix"

rm -rf "$prefix" "$work_dir/pkg-config"
mkdir -p "$work_dir/pkg-config"
cmake --install "$build_dir" --prefix "$prefix" > "$work_dir/install.log"

# The package must not point back at the trees it came from.
if grep -rlE "$source_dir/(src|build|node_modules)|$build_dir" \
     "$prefix/lib/cmake/gcpstream" "$prefix/lib/pkgconfig"; then
  echo "the installed package names the source or build tree (above)" >&2
  exit 1
fi

launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S examples/cpp -B "$work_dir/cmake" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" \
  > "$work_dir/configure.log"
cmake --build "$work_dir/cmake" -j 2 > "$work_dir/build.log" \
  || { tail -50 "$work_dir/build.log" >&2; exit 1; }

# pkg-config: the same source, compiled and linked with nothing but what
# `pkg-config --cflags --libs gcpstream` says (CLI11 is the example's own).
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
read -r -a flags <<< "$(pkg-config --cflags --libs gcpstream CLI11)"
ccache_bin=()
if command -v ccache > /dev/null; then ccache_bin=(ccache); fi
"${ccache_bin[@]}" c++ -std=c++20 -O1 -c examples/cpp/iceberg_add_files.cc \
  -o "$work_dir/pkg-config/iceberg_add_files.o" "${flags[@]}"
c++ -o "$work_dir/pkg-config/iceberg_add_files" \
  "$work_dir/pkg-config/iceberg_add_files.o" "${flags[@]}"
echo "built examples/cpp against $prefix"
