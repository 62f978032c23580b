#!/usr/bin/env bash
# What the test suite needs beyond Bun and node_modules, installed from
# Debian's packages when missing: Chromium for the browser tests (when
# test/browser.enabled exists), PostgreSQL, Redis, openssl for the Connections TLS fixtures,
# promtool for the metrics format, qemu and lintian for the release test, systemd's
# systemd-analyze for the service unit, and jq, curl and zip for the documentation's
# shell examples (test/docs-examples.test.ts).
# Run by `bun run ci` (and so by .ci/run) before the tests.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=()
if [ -f test/browser.enabled ] && [ ! -x /usr/bin/chromium ]; then packages+=(chromium); fi
if ! command -v openssl >/dev/null 2>&1; then packages+=(openssl); fi
# PostgreSQL's server runs the storage port's tests on the second engine (test/support/postgres-server.ts).
if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then packages+=(postgresql); fi
# Redis carries realtime between the nodes of the two-node tests (test/support/redis-server.ts).
if ! command -v redis-server >/dev/null 2>&1; then packages+=(redis-server); fi
# promtool (Prometheus) checks a /metrics scrape (test/metrics.test.ts).
if ! command -v promtool >/dev/null 2>&1; then packages+=(prometheus); fi
# The release test (test/release.test.ts) runs the linux-arm64 build under qemu with Debian's arm64 loader,
# and checks the Debian package with lintian.
if ! command -v qemu-aarch64 >/dev/null 2>&1; then packages+=(qemu-user); fi
if [ ! -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ]; then packages+=(libc6-arm64-cross); fi
if ! command -v lintian >/dev/null 2>&1; then packages+=(lintian); fi
if ! command -v file >/dev/null 2>&1; then packages+=(file); fi
# systemd-analyze verifies contrib/easel.service.
if ! command -v systemd-analyze >/dev/null 2>&1; then packages+=(systemd); fi
# The docs' shell examples keep ids and keys with jq, talk curl and zip sites.
for tool in jq curl zip; do
  if ! command -v $tool >/dev/null 2>&1; then packages+=($tool); fi
done
[ ${#packages[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "tests need: ${packages[*]} (apt-get install -y ${packages[*]} as root)" >&2
    exit 1
  fi
  sudo="sudo"
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "tests need: ${packages[*]}; install them with your package manager (Chromium at /usr/bin/chromium)" >&2
  exit 1
fi
echo "installing ${packages[*]} from Debian's packages" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${packages[@]}" >/dev/null
