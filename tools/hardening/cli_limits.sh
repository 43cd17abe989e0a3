#!/usr/bin/env bash
# `kwsuggest suggest` on hostile input: long lines (1 MB, 3 MB, 99 MB), a NUL line, terminal escapes, and a
# keywords file that is a symlink to /dev/urandom. Prints exit status, seconds and peak RSS of each.
# Usage: tools/hardening/cli_limits.sh
source "$(dirname "$0")/common.sh"
build_release
run() {  # run LABEL INPUT-FILE ARGS...: suggest with INPUT-FILE as standard input
    local label=$1 input=$2
    shift 2
    set +e
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$BIN" suggest "$@" < "$input" > "$WORK/out" 2> "$WORK/err"
    local status=$?
    set -e
    read -r seconds rss < <(tail -1 "$WORK/time")
    echo "$label: exit $status, $seconds s, peak RSS $((rss / 1024)) MB: $(tail -c 160 "$WORK/err" | tr '\n' ' ')"
}
for mb in 1 3 99; do
    python3 -c "import sys; sys.stdout.write('あ' * ($mb * 1000000 // 3))" > "$WORK/line$mb"
    run "one ${mb} MB line" "$WORK/line$mb"
done
printf 'a\0b\n' > "$WORK/nul"
run "NUL line" "$WORK/nul"
printf '\033]0;owned\007にんじん \302\23331m\n' > "$WORK/escape"
run "terminal escapes" "$WORK/escape" -k 1
echo "  echoed as: $(head -1 "$WORK/out")"
ln -s /dev/urandom "$WORK/urandom.txt"
echo にんじん > "$WORK/name"
run "--keywords symlink to /dev/urandom" "$WORK/name" --keywords "$WORK/urandom.txt"
