#!/usr/bin/env bash
# Runs every hardening script in turn against one release build (about 10 minutes after the build).
# Usage: tools/hardening/run_all.sh        Each script can also be run alone; see RELIABILITY.md.
set -uo pipefail
cd "$(dirname "$0")/../.."
swift build -c release --scratch-path .build-tools/release --product kwsuggest || exit 1
FAIL=0
for step in "bad_input.sh" "slow_clients.sh 15 200 1000" "vanish.sh 500" "load.sh 60 64" "sigterm.sh 3" "kill9.sh 20" \
        "attacks.sh" "damaged_model.sh 5" "cli_limits.sh" "sighup_storm.sh" "idle_sockets.sh 4200 20" \
        "bulk_keywords.sh 3 8000" "write_lanes.sh 20 6" "feedback_batch_kill.sh 3" "first_post.sh 100"; do
    echo "=== tools/hardening/$step"
    SKIP_BUILD=1 bash tools/hardening/$step || { echo "=== FAILED: $step"; FAIL=1; }
done
exit $FAIL
