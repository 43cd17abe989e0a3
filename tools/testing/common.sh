#!/usr/bin/env bash
# Helpers shared by tools/test.sh and its suites: totals over several test runners, and installing Debian
# packages when a suite needs them.

TOTAL_PASSED=0
TOTAL_FAILED=0

# add_results PASSED FAILED: adds one suite's totals.
add_results() {
  TOTAL_PASSED=$((TOTAL_PASSED + $1))
  TOTAL_FAILED=$((TOTAL_FAILED + $2))
}

# need_packages PKG...: installs missing Debian packages as root (or through sudo); otherwise names them and fails.
need_packages() {
  local missing=()
  local package
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
      sudo=(sudo)
    else
      echo "tools/test.sh: these tests need: apt-get install ${missing[*]}" >&2
      return 1
    fi
  fi
  echo "tools/test.sh: installing ${missing[*]}" >&2
  "${sudo[@]}" apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# run_swift_tests [ENV=VALUE...]: `swift test`, counting XCTest's totals. XCTest prints its totals first and
# Swift Testing (unused here) prints "0 tests" last, so the XCTest line is the one counted.
run_swift_tests() {
  local log
  log=$(mktemp)
  local status=0
  env "$@" swift test 2>&1 | tee "$log" || status=$?
  local summary executed failed
  summary=$(grep -E '^[[:space:]]*Executed [0-9]+ tests?, with [0-9]+ failures?' "$log" | tail -1 || true)
  rm -f "$log"
  executed=$(sed -E 's/.*Executed ([0-9]+) tests?.*/\1/' <<<"$summary")
  failed=$(sed -E 's/.*with ([0-9]+) failures?.*/\1/' <<<"$summary")
  if [ -z "$executed" ] || [ "$executed" -eq 0 ]; then
    echo "swift test: no XCTest ran (exit $status)" >&2
    add_results 0 1
    return 0
  fi
  [ "$status" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
  add_results $((executed - failed)) "$failed"
}

# run_counted_suite LABEL COMMAND...: runs a suite whose closing line is "N passed, N failed" (its output shown)
# and adds those totals; a suite that ends without that line counts as one failure.
run_counted_suite() {
  local label=$1
  shift
  local log
  log=$(mktemp)
  local status=0
  "$@" 2>&1 | tee "$log" || status=$?
  local summary
  summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1 || true)
  rm -f "$log"
  if [ -z "$summary" ]; then
    echo "$label: no closing 'N passed, N failed' line (exit $status)" >&2
    add_results 0 1
    return 0
  fi
  local passed failed
  passed=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$summary")
  failed=$(sed -E 's/.* ([0-9]+) failed$/\1/' <<<"$summary")
  [ "$status" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
  add_results "$passed" "$failed"
}

# finish_tests: the closing line, and the exit status.
finish_tests() {
  echo "$TOTAL_PASSED passed, $TOTAL_FAILED failed"
  [ "$TOTAL_FAILED" -eq 0 ]
}
