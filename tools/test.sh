#!/usr/bin/env bash
# Runs every test of the project: `swift test` (unit, socket, live-server and CLI tests) plus the suites
# that need real outside programs. Run as root (or with sudo available) on a fresh machine, it installs
# what those suites need from Debian's packages when missing; otherwise it names what to install.
# .ci/run runs exactly this command.
#
# The closing line is "N passed, N failed" summed over every suite, and the exit status is non-zero
# when any suite failed.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tools/testing/common.sh
source tools/testing/common.sh

run_swift_tests

# The Kubernetes manifests and the Dockerfile, validated offline (kubernetes-validate, checkov); pip installs
# the pinned tools into a cached virtual environment the first time.
run_suite "kubernetes manifests" tools/deploy/validate_kubernetes.sh

finish_tests
