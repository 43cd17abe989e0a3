#!/usr/bin/env bash
# Damaged model files must stop start-up with a clear error (exit 1), never serve NaN scores; and the cost of
# checking the manifest's SHA-256 checksums at start-up. Usage: tools/hardening/damaged_model.sh [RUNS]
source "$(dirname "$0")/common.sh"
build_release
MODEL="$ROOT/models/default"
FAIL=0

damage() {  # damage NAME FILE OFFSET HEXBYTES: a copy of the model with bytes overwritten at OFFSET
    local dir="$WORK/$1"
    cp -r "$MODEL" "$dir"
    python3 - "$dir/$2" "$3" "$4" <<'PY'
import sys
path, offset, data = sys.argv[1], int(sys.argv[2]), bytes.fromhex(sys.argv[3])
with open(path, "r+b") as f:
    f.seek(offset)
    f.write(data)
PY
    echo "$dir"
}

check() {  # check LABEL DIR: suggest must exit 1 with an error naming the file
    local out status
    set +e
    out=$("$BIN" suggest --model "$2" "にんじん 3本" 2>&1)
    status=$?
    set -e
    echo "$1: exit $status: $(echo "$out" | tail -1 | cut -c1-200)"
    [ "$status" = 1 ] || { echo "FAIL: $1 was not refused"; FAIL=1; }
}

ROWS=$(python3 -c "import struct;h=open('$MODEL/vectors.kwv','rb').read(64);print(struct.unpack_from('<Q',h,32)[0] + 2*struct.unpack_from('<I',h,16)[0]*5)")
check "200 flipped bytes in encoder.bin" "$(damage flipped encoder.bin 1000 "$(printf '5a%.0s' $(seq 200))")"
check "Float16 NaN in row 5 of vectors.kwv" "$(damage nan-row vectors.kwv "$ROWS" 007e)"
check "3e38 weight in encoder.bin" "$(damage huge encoder.bin 40 "$(python3 -c "import struct;print(struct.pack('<f',3e38).hex())")")"

# Start-up cost of the checksums: the shipped model against a copy whose manifest records none.
cp -r "$MODEL" "$WORK/nosum"
python3 - "$WORK/nosum/manifest.json" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
open(sys.argv[1], "w").write(re.sub(r'  "file_sha256" : \{[^}]*\},\n', "", text))
PY
RUNS=${1:-15}
for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "checked %e %U %S" "$BIN" suggest --model "$MODEL" "にんじん" > /dev/null
    /usr/bin/time -f "unchecked %e %U %S" "$BIN" suggest --model "$WORK/nosum" "にんじん" > /dev/null
done 2> "$WORK/times"
python3 - "$WORK/times" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    kind, wall, user, system = line.split()
    rows.setdefault(kind, []).append((float(wall), float(user) + float(system)))
for kind in ("checked", "unchecked"):
    values = rows[kind]
    print(f"{kind}: {len(values)} runs, median wall {statistics.median(v[0] for v in values):.3f} s, "
          f"median CPU {statistics.median(v[1] for v in values):.3f} s")
PY
exit $FAIL
