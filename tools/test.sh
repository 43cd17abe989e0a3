#!/usr/bin/env bash
# Runs every test of the project: `swift test` (unit, socket, live-server and CLI tests) plus the suites
# that need real outside programs. Run as root (or with sudo available) on a fresh machine, it installs
# what those suites need from Debian's packages when missing; otherwise it names what to install.
# .ci/run runs exactly this command.
#
# PostgreSQL: a throwaway cluster (tools/postgres/throwaway.sh) runs for the duration of `swift test`, whose
# PostgreSQL store tests use it through KWSUGGEST_TEST_POSTGRES_URL; it is stopped and removed on exit.
#
# The closing line is "N passed, N failed" summed over every suite, and the exit status is non-zero
# when any suite failed.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tools/testing/common.sh
source tools/testing/common.sh

need_packages postgresql libpq5
postgres=$(tools/postgres/throwaway.sh start)
postgres_url=$(sed -n 1p <<<"$postgres")
postgres_dir=$(sed -n 2p <<<"$postgres")
trap 'tools/postgres/throwaway.sh stop "$postgres_dir"' EXIT

run_swift_tests KWSUGGEST_TEST_POSTGRES_URL="$postgres_url" KWSUGGEST_TEST_POSTGRES_DIR="$postgres_dir"

# The Kubernetes manifests and the Dockerfile, validated offline (kubernetes-validate, checkov); pip installs
# the pinned tools into a cached virtual environment the first time.
run_counted_suite "kubernetes manifests" tools/deploy/validate_kubernetes.sh

# The workbench page in a real browser: Debian's chromium and chromedriver through python3-selenium, against the
# debug binary `swift test` just built.
if need_packages chromium chromium-driver python3-selenium; then
  run_counted_suite "browser" tools/browser/run.sh .build/debug/kwsuggest
else
  add_results 0 1
fi

# /openapi.json against the live server in both directions (schemathesis, pinned, installed into
# .build/contract-venv from PyPI when missing), with and without the admin token.
run_counted_suite "contract" tools/contract/schemathesis.sh .build/debug/kwsuggest

# The libFuzzer target of the parser and the request decoding: it must still build, and a short run from the
# seeds and the regression corpus must find no crash (long runs: fuzz/run.sh).
run_counted_suite "fuzz" fuzz/check.sh 20000

# The Dockerfile built with Debian's podman (runc, debootstrap for the stand-in base images) and the running
# image checked: tokens, readiness, HEALTHCHECK, non-root, a read-only root with a volume, the drain on SIGTERM,
# two replicas on a throwaway PostgreSQL through an outage. The base images and the debootstrap root stay cached
# in /var/cache/kwsuggest-container, so only the first run pays for them (about 6 min); a run after a Sources
# change takes 2-4 min, the release build inside the image.
if need_packages podman runc debootstrap curl; then
  run_counted_suite "container" tools/container/build_and_check.sh
else
  add_results 0 1
fi

finish_tests
