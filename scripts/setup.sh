#!/usr/bin/env bash
# Installs what gcpstream needs on a Debian 12 machine, idempotently.
#
#   scripts/setup.sh [build|main-job|test-tools|all]     (default: all)
#
#   build:      Debian packages listed in deps/apt-packages.txt (only missing
#               ones) and the npm package pinned in package-lock.json (the
#               googleapis protos; only when the lock changed): what a build
#               needs.
#   main-job:   build, and the Google Cloud emulators (checked; installed if
#               an apt source has them): what scripts/run-main-job.sh needs.
#   test-tools: the emulators, a Python virtual environment .venv with
#               requirements-test.txt, .venv-cloudtasks with the Cloud Tasks
#               emulator, .venv-bigquery with the BigQuery emulator, and in
#               .tools/ the Iceberg REST catalog fixture jar (Maven Central)
#               and fake-gcs-server, the Cloud Storage emulator (built with Go
#               from the Go module proxy). Needs what `build` installs.
#               scripts/test.sh runs it beside the build.
#   all:        everything above.
# A second run on a ready machine only checks, in a few seconds.
set -euo pipefail
phase="${1:-all}"
case "$phase" in
  build|main-job|test-tools|all) ;;
  *) echo "usage: scripts/setup.sh [build|main-job|test-tools|all]" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
root="$(pwd)"

log() { echo "setup: $*" >&2; }

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else log "need root to run: $*"; exit 1
  fi
}

apt_updated=0
apt_install() {
  if [[ $apt_updated -eq 0 ]]; then
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    apt_updated=1
  fi
  log "installing $*"
  as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

# What a plain Debian 12 lacks that no Debian 12 package provides: say so
# before anything is installed.
require_prerequisites() {
  if [[ ! -r /etc/debian_version ]] || ! command -v apt-get >/dev/null; then
    log "this script installs with apt-get on Debian 12 (bookworm); on another"
    log "system install the packages in deps/apt-packages.txt yourself"
    exit 1
  fi
}

go_at_least_1_22() {  # prints a go binary that is Go >= 1.22
  local candidate version
  for candidate in "$(command -v go || true)" /usr/local/go/bin/go; do
    [[ -n $candidate && -x $candidate ]] || continue
    version="$("$candidate" env GOVERSION 2>/dev/null || true)"
    if [[ "$(printf '%s\n%s\n' go1.22 "$version" | sort -V | head -1)" == go1.22 ]]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

install_build_packages() {
mapfile -t wanted < <(grep -v '^\s*#' deps/apt-packages.txt | grep -v '^\s*$')
missing=()
for package in "${wanted[@]}"; do
  # A tool that is already on PATH from elsewhere (e.g. node from nodesource,
  # a JDK from Temurin) is good enough.
  case "$package" in
    nodejs) command -v node >/dev/null && continue ;;
    npm) command -v npm >/dev/null && continue ;;
    openjdk-17-jre-headless) command -v java >/dev/null && continue ;;
    python3-venv) python3 -c 'import venv, ensurepip' 2>/dev/null && continue ;;
    cmake) command -v cmake >/dev/null && continue ;;
    g++) command -v g++ >/dev/null && continue ;;
    git) command -v git >/dev/null && continue ;;
  esac
  installed "$package" || missing+=("$package")
done
if [[ ${#missing[@]} -gt 0 ]]; then apt_install "${missing[@]}"; fi
}

# --- Google Cloud emulators ------------------------------------------------
install_emulators() {
# They ship with the Google Cloud CLI's Debian packages. The harness finds the
# SDK through the gcloud on PATH (or GCPSTREAM_GCLOUD_SDK_ROOT).
emulator_packages=(google-cloud-cli-pubsub-emulator google-cloud-cli-spanner-emulator
                   google-cloud-cli-bigtable-emulator)
missing=()
for package in "${emulator_packages[@]}"; do
  installed "$package" || missing+=("$package")
done
if [[ ${#missing[@]} -gt 0 && -z "${GCPSTREAM_GCLOUD_SDK_ROOT:-}" ]]; then
  if apt-cache show "${missing[0]}" >/dev/null 2>&1; then
    apt_install "${missing[@]}"
  else
    log "missing ${missing[*]}: no apt source provides them. The Pub/Sub,"
    log "Spanner and Bigtable emulators come from the Google Cloud CLI's own apt"
    log "source, which plain Debian 12 does not have: add it as"
    log "https://cloud.google.com/sdk/docs/install#deb says, then rerun; or point"
    log "GCPSTREAM_GCLOUD_SDK_ROOT at an installed Google Cloud SDK."
    exit 1
  fi
fi
}

# --- npm: googleapis protos ---------------------------------------------------
install_protos() {
lock_hash="$(sha256sum package-lock.json | cut -d' ' -f1)"
stamp=node_modules/.gcpstream-lock.sha256
if [[ ! -f $stamp || "$(cat "$stamp")" != "$lock_hash" ]]; then
  log "npm ci (package-lock.json changed)"
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
  echo "$lock_hash" > "$stamp"
fi
}

# --- Python test tools ---------------------------------------------------------
install_test_tools() {
requirements_hash="$(sha256sum requirements-test.txt | cut -d' ' -f1)"
stamp=.venv/.gcpstream-requirements.sha256
if [[ ! -f $stamp || "$(cat "$stamp")" != "$requirements_hash" ]]; then
  log "python venv .venv (requirements-test.txt changed)"
  [[ -x .venv/bin/python ]] || python3 -m venv .venv
  .venv/bin/python -m pip install --quiet --disable-pip-version-check \
    -r requirements-test.txt
  echo "$requirements_hash" > "$stamp"
fi

# --- The Cloud Tasks emulator (PyPI) -------------------------------------------
# In its own environment: it pins an older protobuf than the test tools.
requirements_hash="$(sha256sum deps/cloudtasks-emulator-requirements.txt | cut -d' ' -f1)"
stamp=.venv-cloudtasks/.gcpstream-requirements.sha256
if [[ ! -f $stamp || "$(cat "$stamp")" != "$requirements_hash" ]]; then
  log "python venv .venv-cloudtasks (the Cloud Tasks emulator)"
  [[ -x .venv-cloudtasks/bin/python ]] || python3 -m venv .venv-cloudtasks
  .venv-cloudtasks/bin/python -m pip install --quiet --disable-pip-version-check \
    -r deps/cloudtasks-emulator-requirements.txt
  echo "$requirements_hash" > "$stamp"
fi

# --- The BigQuery emulator (PyPI) -----------------------------------------------
# bqemulator in its own environment (it pins protobuf 6 and DuckDB 1.5.5). At
# start it loads DuckDB's spatial and avro extensions, which it would download:
# their wheels' files are copied into .venv-bigquery/home/.duckdb, the HOME the
# harness gives it, so it starts offline.
requirements_hash="$(sha256sum deps/bigquery-emulator-requirements.txt | cut -d' ' -f1)"
stamp=.venv-bigquery/.gcpstream-requirements.sha256
if [[ ! -f $stamp || "$(cat "$stamp")" != "$requirements_hash" ]]; then
  log "python venv .venv-bigquery (the BigQuery emulator)"
  [[ -x .venv-bigquery/bin/python ]] || python3 -m venv .venv-bigquery
  .venv-bigquery/bin/python -m pip install --quiet --disable-pip-version-check \
    -r deps/bigquery-emulator-requirements.txt
  duckdb_version="$(.venv-bigquery/bin/python -c 'import duckdb; print(duckdb.__version__)')"
  extensions=".venv-bigquery/home/.duckdb/extensions/v${duckdb_version}/linux_amd64"
  mkdir -p "$extensions"
  cp .venv-bigquery/lib/python3*/site-packages/duckdb_extension_{spatial,avro}/extensions/v"${duckdb_version}"/*.duckdb_extension \
    "$extensions/"
  echo "$requirements_hash" > "$stamp"
fi

# --- Go module proxy: the Cloud Storage emulator ------------------------------
# fake-gcs-server, built from the Go module proxy into .tools/bin (about two
# minutes once); the emulator harness starts it (docs/emulators.md).
fake_gcs_version=v1.56.1
fake_gcs_stamp=.tools/bin/.fake-gcs-server.version
if [[ ! -x .tools/bin/fake-gcs-server || "$(cat "$fake_gcs_stamp" 2>/dev/null)" != "$fake_gcs_version" ]]; then
  if ! go_binary="$(go_at_least_1_22)"; then
    log "Go 1.22 or later is needed to build fake-gcs-server (the Cloud Storage"
    log "emulator); Debian 12's golang package is 1.19. Install Go from"
    log "https://go.dev/dl/ (e.g. into /usr/local/go) or bookworm-backports'"
    log "golang-1.22, then rerun."
    exit 1
  fi
  log "fake-gcs-server ${fake_gcs_version} (Go module proxy)"
  mkdir -p .tools/bin
  GOBIN="$root/.tools/bin" "$go_binary" install \
    "github.com/fsouza/fake-gcs-server@${fake_gcs_version}"
  echo "$fake_gcs_version" > "$fake_gcs_stamp"
fi

# --- Maven Central: the Iceberg REST catalog fixture ---------------------------
# Iceberg's reference REST server (org.apache.iceberg.rest.RESTCatalogServer,
# the jar behind the apache/iceberg-rest-fixture image), which the add-files
# tests run on loopback. Checked against Maven Central's SHA-1.
iceberg_rest_version=1.10.0
iceberg_rest_jar=".tools/iceberg-open-api-${iceberg_rest_version}.jar"
if [[ ! -f $iceberg_rest_jar ]]; then
  log "Iceberg REST catalog fixture ${iceberg_rest_version} (Maven Central)"
  mkdir -p .tools
  url="https://repo1.maven.org/maven2/org/apache/iceberg/iceberg-open-api/${iceberg_rest_version}/iceberg-open-api-${iceberg_rest_version}.jar"
  curl -fsSL --retry 3 -o "$iceberg_rest_jar.part" "$url"
  expected="$(curl -fsSL --retry 3 "$url.sha1" | cut -c1-40)"
  if [[ "$(sha1sum "$iceberg_rest_jar.part" | cut -d' ' -f1)" != "$expected" ]]; then
    log "the Iceberg REST fixture jar does not match Maven Central's SHA-1"
    rm -f "$iceberg_rest_jar.part"
    exit 1
  fi
  mv "$iceberg_rest_jar.part" "$iceberg_rest_jar"
fi
}

require_prerequisites
case "$phase" in
  build) install_build_packages; install_protos ;;
  main-job) install_build_packages; install_protos; install_emulators ;;
  test-tools) install_emulators; install_test_tools ;;
  all) install_build_packages; install_protos; install_emulators; install_test_tools ;;
esac
log "ready for $phase ($root)"
