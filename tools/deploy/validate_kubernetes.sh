#!/usr/bin/env bash
# Validates the Kubernetes manifests (deploy/kubernetes/) and the Dockerfile offline, without a cluster:
#   1. kubernetes-validate --strict against the schemas of a recent and an older supported Kubernetes
#      (every manifest except the Prometheus Operator ServiceMonitor, whose CRD schema is not bundled);
#   2. checkov (kubernetes, secrets and dockerfile checks): no failed check, and every skipped check carries
#      a reason (checkov.io/skipN annotations in the manifests);
#   3. consistency between the objects, which neither tool checks: selectors match the pod labels, named
#      ports and Secret keys exist, probe paths, rollout settings, grace period longer than the drain, the
#      Prometheus annotations name the container port, the ServiceMonitor finds the Service.
# Prints one line per check and a final "N passed, N failed"; exits 1 when any check fails.
#
# Usage: tools/deploy/validate_kubernetes.sh
# The tools are installed with pip into a virtual environment cached in $VENV (default
# ~/.cache/kwsuggest/deploy-venv); about 80 s the first time, then about 10 s per run.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The pinned versions live in tools/requirements.txt.
CHECKOV_VERSION=$(sed -n 's/^checkov==\([^ ]*\).*/\1/p' tools/requirements.txt)
KUBERNETES_VALIDATE_VERSION=$(sed -n 's/^kubernetes-validate==\([^ ]*\).*/\1/p' tools/requirements.txt)
if [ -z "$CHECKOV_VERSION" ] || [ -z "$KUBERNETES_VALIDATE_VERSION" ]; then
    echo "validate_kubernetes.sh: tools/requirements.txt pins no checkov or kubernetes-validate" >&2; exit 1
fi
KUBERNETES_VERSIONS=(1.37.0 1.33.0)   # the newest schemas kubernetes-validate bundles, and an older supported release
VENV=${VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/kwsuggest/deploy-venv}
PYTHON=${PYTHON:-python3}

PASSED=0; FAILED=0
pass() { PASSED=$((PASSED + 1)); printf 'PASS  %s\n' "$*"; }
fail() { FAILED=$((FAILED + 1)); printf 'FAIL  %s\n' "$*"; }

STAMP="checkov==$CHECKOV_VERSION kubernetes-validate==$KUBERNETES_VALIDATE_VERSION"
if [ ! -x "$VENV/bin/checkov" ] || [ "$(cat "$VENV/.kwsuggest-stamp" 2>/dev/null)" != "$STAMP" ]; then
    echo "installing $STAMP into $VENV"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    # shellcheck disable=SC2086
    "$VENV/bin/pip" install --quiet --disable-pip-version-check $STAMP
    echo "$STAMP" > "$VENV/.kwsuggest-stamp"
fi

MANIFESTS=()
while IFS= read -r file; do MANIFESTS+=("$file"); done < <(find deploy/kubernetes -name '*.yaml' | sort)
SCHEMA_MANIFESTS=()
for file in "${MANIFESTS[@]}"; do grep -q '^kind: ServiceMonitor' "$file" || SCHEMA_MANIFESTS+=("$file"); done

# ---- 1. schemas
for version in "${KUBERNETES_VERSIONS[@]}"; do
    set +e
    OUTPUT=$("$VENV/bin/kubernetes-validate" --strict --kubernetes-version "$version" "${SCHEMA_MANIFESTS[@]}" 2>&1)
    STATUS=$?
    set -e
    OK=$(grep -c ' passed for resource ' <<< "$OUTPUT" || true)
    if [ "$STATUS" = 0 ] && [ "$OK" = "${#SCHEMA_MANIFESTS[@]}" ]; then
        pass "kubernetes-validate --strict, Kubernetes $version: $OK of ${#SCHEMA_MANIFESTS[@]} manifests"
    else
        echo "$OUTPUT" | grep -v ' passed for resource '
        fail "kubernetes-validate --strict, Kubernetes $version: $OK of ${#SCHEMA_MANIFESTS[@]} manifests"
    fi
done

# ---- 2. checkov
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
count() {  # adds the PASS and FAIL lines of a report to the totals
    cat "$1"
    PASSED=$((PASSED + $(grep -c '^PASS' "$1" || true)))
    FAILED=$((FAILED + $(grep -c '^FAIL' "$1" || true)))
}
# One run per target: given both -d and -f, checkov 3.3 scans only the directory. No --quiet: with it the
# JSON report leaves out the skipped checks, whose reasons are checked below.
set +e
"$VENV/bin/checkov" --compact --skip-download --output json \
    --framework kubernetes secrets -d deploy/kubernetes > "$OUT/checkov-kubernetes.json" 2> "$OUT/checkov.err"
"$VENV/bin/checkov" --compact --skip-download --output json \
    --framework dockerfile secrets -f Dockerfile > "$OUT/checkov-dockerfile.json" 2>> "$OUT/checkov.err"
set -e
"$VENV/bin/python" - "$OUT/checkov-kubernetes.json" "$OUT/checkov-dockerfile.json" > "$OUT/checkov.txt" 2>&1 <<'PY' || true
import json, sys
reports = []
for path in sys.argv[1:]:
    text = open(path).read()
    try:
        data = json.loads(text)
    except ValueError:
        print("FAIL  checkov produced no JSON report: " + text[:2000]); continue
    reports += [r for r in (data if isinstance(data, list) else [data]) if isinstance(r, dict) and "results" in r]
for kind in ("kubernetes", "dockerfile"):
    if not any(r.get("check_type") == kind for r in reports):
        print("FAIL  checkov ran no %s checks" % kind)
for r in reports:
    summary, results = r["summary"], r["results"]
    unexplained = [c for c in results.get("skipped_checks", [])
                   if not (c.get("check_result", {}).get("suppress_comment") or "").strip()]
    ok = summary["failed"] == 0 and not unexplained
    print("%s  checkov %s: %d passed, %d failed, %d skipped%s" % (
        "PASS" if ok else "FAIL", r["check_type"], summary["passed"], summary["failed"], summary["skipped"],
        ", %d of them without a reason" % len(unexplained) if unexplained else ""))
    for c in results.get("failed_checks", []):
        print("      failed %s %s: %s %s" % (c["check_id"], c["check_name"], c["file_path"], c.get("resource")))
    for c in results.get("skipped_checks", []):
        print("      skipped %s in %s: %s" % (c["check_id"], c["file_path"], c["check_result"].get("suppress_comment", "")))
PY
count "$OUT/checkov.txt"
grep -q '^PASS\|^FAIL' "$OUT/checkov.txt" || { cat "$OUT/checkov.err"; fail "checkov ran"; }

# ---- 3. consistency between the objects
"$VENV/bin/python" tools/deploy/check_manifests.py deploy/kubernetes > "$OUT/consistency.txt" 2>&1 || true
count "$OUT/consistency.txt"
grep -q '^PASS\|^FAIL' "$OUT/consistency.txt" || fail "check_manifests.py ran"

echo
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
