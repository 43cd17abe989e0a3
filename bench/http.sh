#!/usr/bin/env bash
# HTTP load benchmark: wrk against `kwsuggest serve` and, optionally, two peer servers
# (FlyingFox, Hummingbird), one after the other on the same machine with the same settings.
#
# Usage: bench/http.sh [KWSUGGEST_BIN]        (default .build/release/kwsuggest)
#
# Environment (all optional):
#   DURATION=5s           wrk duration of each measured run
#   ROUNDS=3              repeat every row this often (servers interleaved); the report shows medians
#   WARMUP=2s             unrecorded wrk run at 32 connections on each server first (0 = none)
#   CONNECTIONS="1 32 128"
#   FLYINGFOX_BIN=path    peer serving GET /healthz; started as `$FLYINGFOX_BIN <port>`
#   HUMMINGBIRD_BIN=path  peer serving GET /healthz; started as `$HUMMINGBIRD_BIN <port>`
#   KWSUGGEST_ARGS="..."  extra arguments for `kwsuggest serve` (e.g. "--model models/default")
#   SKIP_KWSUGGEST=1      measure only the peers (e.g. while the server is not built)
#   OUT=path              markdown report (default bench/results/http-<UTC date-time>.md)
#
# Loopback only (127.0.0.1). Every server this script starts is stopped on exit.
# wrk uses 1 thread for 1 connection and 2 threads otherwise; on a 2-core machine it competes
# with the server for the CPUs, so absolute numbers are lower than on a separate load machine.
set -euo pipefail

cd "$(dirname "$0")/.."

KWSUGGEST_BIN=${1:-${KWSUGGEST_BIN:-.build/release/kwsuggest}}
DURATION=${DURATION:-5s}
ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-2s}
CONNECTIONS=${CONNECTIONS:-"1 32 128"}
KWSUGGEST_ARGS=${KWSUGGEST_ARGS:-}
SKIP_KWSUGGEST=${SKIP_KWSUGGEST:-0}
FLYINGFOX_BIN=${FLYINGFOX_BIN:-}
HUMMINGBIRD_BIN=${HUMMINGBIRD_BIN:-}
STAMP=$(date -u +%Y-%m-%d-%H%M)
OUT=${OUT:-bench/results/http-$STAMP.md}

die() { echo "http.sh: $*" >&2; exit 1; }
command -v wrk >/dev/null || die "wrk not found (apt-get install -y wrk)"
command -v curl >/dev/null || die "curl not found"

# wrk's -d accepts 10s / 1m; we also need the length in seconds for a hard time limit.
seconds_of() {
    case $1 in
        *ms) echo 1 ;;
        *s) echo "${1%s}" ;;
        *m) echo $(( ${1%m} * 60 )) ;;
        *h) echo $(( ${1%h} * 3600 )) ;;
        *) echo "$1" ;;
    esac
}
DURATION_S=$(seconds_of "$DURATION")

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kwsuggest-http.XXXXXX")
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]:-}"; do
        [ -n "$pid" ] || continue
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]:-}"; do
        [ -n "$pid" ] || continue
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

stop_server() {
    local pid=$1 i
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    for i in "${!PIDS[@]}"; do
        if [ "${PIDS[$i]}" = "$pid" ]; then PIDS[i]=""; fi
    done
}

# A free loopback port: nothing answers a connect on it.
free_port() {
    local port
    for _ in $(seq 200); do
        port=$(( 20000 + RANDOM % 40000 ))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"; return 0
        fi
    done
    die "no free port found"
}

# Waits until GET $1 answers 200, at most $2 seconds, while process $3 lives.
wait_ok() {
    local url=$1 limit=$2 pid=$3 code
    for _ in $(seq $(( limit * 10 ))); do
        kill -0 "$pid" 2>/dev/null || return 1
        code=$(curl -s -o /dev/null -m 1 -w '%{http_code}' "$url" || true)
        [ "$code" = 200 ] && return 0
        sleep 0.1
    done
    return 1
}

# The suggest load: POST /v1/suggest, rotating over a fixed set of realistic product names.
cat > "$WORK/suggest.lua" <<'LUA'
local names = {
  "淡路島産 カラーにんじん 3本",
  "北海道産 男爵いも 1kg",
  "国産 若鶏もも肉 300g",
  "有機栽培 ほうれん草 1束",
  "愛媛県産 温州みかん 2kg 訳あり",
  "長崎県産 新玉ねぎ 5玉",
  "国産 豚バラ 薄切り 200g",
  "高知県産 土佐しょうが 100g",
}
local bodies = {}
for i, n in ipairs(names) do
  bodies[i] = '{"name":"' .. n .. '","k":5}'
end
local i = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  i = i % #bodies + 1
  return wrk.format(nil, nil, nil, bodies[i])
end
LUA

CLK_TCK=$(getconf CLK_TCK)
# CPU time (user + system, in clock ticks) used so far by process $1; 0 when it is gone.
cpu_ticks() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
    stat=${stat##*) }   # drop "pid (comm) ": the command name may contain spaces
    echo "$stat" | awk '{ print $12 + $13 }'
}

# One wrk run against a server with pid $5 (optional); prints
# "req_s p50_ms p99_ms non2xx errors server_cpu_us_per_request".
run_wrk() {
    local url=$1 conns=$2 duration=$3 script=${4:-} pid=${5:-} threads=2 raw before=0 after=0
    if [ "$conns" -eq 1 ]; then threads=1; fi
    local args=(-t "$threads" -c "$conns" -d "$duration" --timeout 5s --latency)
    if [ -n "$script" ]; then args+=(-s "$script"); fi
    if [ -n "$pid" ]; then before=$(cpu_ticks "$pid"); fi
    raw=$(timeout $(( $(seconds_of "$duration") + 30 )) wrk "${args[@]}" "$url" 2>&1) || true
    if [ -n "$pid" ]; then after=$(cpu_ticks "$pid"); fi
    printf '%s\n' "$raw" >> "$WORK/wrk.log"
    printf '%s\n' "$raw" | awk -v ticks=$(( after - before )) -v hz="$CLK_TCK" -v havepid="${pid:+1}" '
        function ms(v) {
            if (v ~ /us$/) { sub(/us$/, "", v); return v / 1000 }
            if (v ~ /ms$/) { sub(/ms$/, "", v); return v + 0 }
            if (v ~ /m$/)  { sub(/m$/, "", v);  return v * 60000 }
            if (v ~ /s$/)  { sub(/s$/, "", v);  return v * 1000 }
            return v + 0
        }
        /^Requests\/sec:/ { rps = $2 }
        / requests in / { requests = $1 }
        /^ +50%/ { p50 = ms($2) }
        /^ +99%/ { p99 = ms($2) }
        /Non-2xx or 3xx responses:/ { non2xx = $NF }
        /Socket errors:/ {
            gsub(/,/, "")
            errors = $4 + $6 + $8 + $10
        }
        END {
            if (rps == "") { print "- - - - - -"; exit }
            cpu = "-"
            if (havepid == 1 && requests > 0) cpu = sprintf("%.1f", ticks * 1e6 / hz / requests)
            printf "%.0f %.3f %.3f %d %d %s\n", rps, p50, p99, non2xx + 0, errors + 0, cpu
        }'
}

RESULTS="$WORK/results.tsv"   # round server route conns threads rps p50 p99 non2xx errors cpu_us
: > "$RESULTS"

LABELS=()   # servers in start order
BASES=()    # their base URLs
SPIDS=()    # their pids

start_peer() {  # $1 label, $2 binary
    local label=$1 bin=$2 port pid
    [ -x "$bin" ] || die "$label binary not executable: $bin"
    port=$(free_port)
    "$bin" "$port" > "$WORK/$label.out" 2> "$WORK/$label.err" &
    pid=$!
    PIDS+=("$pid")
    if ! wait_ok "http://127.0.0.1:$port/healthz" 30 "$pid"; then
        cat "$WORK/$label.out" "$WORK/$label.err" >&2
        die "$label did not answer /healthz on port $port"
    fi
    echo "$label: 127.0.0.1:$port (pid $pid)" >&2
    LABELS+=("$label"); BASES+=("http://127.0.0.1:$port"); SPIDS+=("$pid")
}

start_kwsuggest() {
    local bin=$KWSUGGEST_BIN pid addr
    [ -x "$bin" ] || die "kwsuggest binary not found: $bin (swift build -c release, or SKIP_KWSUGGEST=1)"
    # shellcheck disable=SC2086
    "$bin" serve --host 127.0.0.1 --port 0 $KWSUGGEST_ARGS > "$WORK/kwsuggest.out" 2> "$WORK/kwsuggest.err" &
    pid=$!
    PIDS+=("$pid")
    # It prints its bound address (host:port) when listening; take the first one on loopback.
    addr=""
    for _ in $(seq 300); do
        kill -0 "$pid" 2>/dev/null || break
        addr=$(cat "$WORK/kwsuggest.out" "$WORK/kwsuggest.err" 2>/dev/null \
            | grep -oE '(127\.0\.0\.1|localhost|\[::1\]):[0-9]+' | grep -vE ':0$' | head -n 1 || true)
        if [ -n "$addr" ]; then break; fi
        sleep 0.1
    done
    if [ -z "$addr" ]; then
        head -c 4000 "$WORK/kwsuggest.out" >&2; head -c 4000 "$WORK/kwsuggest.err" >&2
        die "kwsuggest serve printed no bound address within 30 s"
    fi
    # /readyz turns 200 once the model is loaded; suggest is measured only after that.
    wait_ok "http://$addr/readyz" 60 "$pid" || wait_ok "http://$addr/healthz" 5 "$pid" \
        || die "kwsuggest at $addr never became ready"
    local sample
    sample=$(curl -s -m 5 -H 'Content-Type: application/json' \
        --data '{"name":"淡路島産 カラーにんじん 3本","k":5}' "http://$addr/v1/suggest" | head -c 600)
    echo "kwsuggest: $addr (pid $pid); sample suggest answer: $sample" >&2
    printf '%s\n' "$sample" > "$WORK/kwsuggest.sample"
    LABELS+=(kwsuggest); BASES+=("http://$addr"); SPIDS+=("$pid")
}

KWSUGGEST_LOG_BYTES=0
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
if [ "$SKIP_KWSUGGEST" != 1 ]; then start_kwsuggest; fi
if [ -n "$FLYINGFOX_BIN" ]; then start_peer FlyingFox "$FLYINGFOX_BIN"; fi
if [ -n "$HUMMINGBIRD_BIN" ]; then start_peer Hummingbird "$HUMMINGBIRD_BIN"; fi
[ "${#LABELS[@]}" -gt 0 ] || die "nothing to measure (no kwsuggest and no peer binaries)"
SERVERS=("${LABELS[@]}")

# All servers run from here on (an idle server costs next to nothing); each row is measured on the
# servers one after the other, and the rounds repeat that, so slow drifts in the machine's other
# load hit every server alike.
if [ "$WARMUP" != 0 ]; then
    for i in "${!LABELS[@]}"; do
        run_wrk "${BASES[$i]}/healthz" 32 "$WARMUP" >/dev/null
        if [ "${LABELS[$i]}" = kwsuggest ]; then run_wrk "${BASES[$i]}/v1/suggest" 32 "$WARMUP" "$WORK/suggest.lua" >/dev/null; fi
    done
fi
for round in $(seq "$ROUNDS"); do
    for route in /healthz /v1/suggest; do
        for conns in $CONNECTIONS; do
            for i in "${!LABELS[@]}"; do
                label=${LABELS[$i]}; pid=${SPIDS[$i]}
                if [ "$route" = /v1/suggest ] && [ "$label" != kwsuggest ]; then continue; fi
                kill -0 "$pid" 2>/dev/null || die "$label exited during the run"
                threads=2; if [ "$conns" -eq 1 ]; then threads=1; fi
                if [ "$route" = /v1/suggest ]; then
                    line=$(run_wrk "${BASES[$i]}$route" "$conns" "$DURATION" "$WORK/suggest.lua" "$pid")
                else
                    line=$(run_wrk "${BASES[$i]}$route" "$conns" "$DURATION" "" "$pid")
                fi
                echo "  round $round $label $route c=$conns: $line (req/s p50ms p99ms non2xx errors cpu-us/req)" >&2
                printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$label" "$route" "$conns" "$threads" "$(echo "$line" | tr ' ' '\t')" >> "$RESULTS"
            done
        done
    done
done
for i in "${!LABELS[@]}"; do stop_server "${SPIDS[$i]}"; done
if [ "$SKIP_KWSUGGEST" != 1 ]; then
    # Its access log (one JSON line per request on stderr) can be large: keep only its size.
    KWSUGGEST_LOG_BYTES=$(wc -c < "$WORK/kwsuggest.err")
fi

# Medians over the rounds, per server, route and connection count:
# "threads rps_median p50_median p99_median non2xx_sum errors_sum cpu_median rps_min rps_max"
summary() {
    awk -F'\t' -v s="$1" -v r="$2" -v c="$3" '
        function median(list, n,    v, i, j, t) {
            split(list, v, " ")
            for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] + 0 > t + 0; j--) v[j + 1] = v[j]; v[j + 1] = t }
            if (n % 2 == 1) return v[(n + 1) / 2]
            return (v[n / 2] + v[n / 2 + 1]) / 2
        }
        $2 == s && $3 == r && $4 == c && $6 != "-" {
            n++; threads = $5
            rps = rps " " $6; p50 = p50 " " $7; p99 = p99 " " $8; cpu = cpu " " $11
            non2xx += $9; errors += $10
            if (min == "" || $6 + 0 < min) min = $6 + 0
            if (max == "" || $6 + 0 > max) max = $6 + 0
        }
        END {
            if (n == 0) { print "- - - - - - - - -"; exit }
            printf "%s %.0f %.3f %.3f %d %d %.1f %.0f %.0f\n", threads, median(rps, n), median(p50, n), median(p99, n), non2xx, errors, median(cpu, n), min, max
        }' "$RESULTS"
}

rps_of() {  # $1 server, $2 route, $3 conns: median req/s over the rounds
    summary "$1" "$2" "$3" | cut -d' ' -f2
}
ratio() {  # $1 / $2, or - when either is missing or zero
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'
}

mkdir -p "$(dirname "$OUT")"
{
    echo "# HTTP benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    warm="after a $WARMUP warm-up at 32 connections per server"
    if [ "$WARMUP" = 0 ]; then warm="no warm-up"; fi
    echo "Generated by \`bench/http.sh\`. Loopback 127.0.0.1, keep-alive, wrk $DURATION per run"
    echo "($warm), \`--latency\` percentiles; all servers up at once, each row measured on them one"
    echo "after the other, $ROUNDS round(s);"
    echo "wrk runs 1 thread for 1 connection and 2 threads otherwise."
    echo
    echo "- Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), Linux $(uname -r)"
    if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then kernel=avx2; else kernel=portable; fi
    echo "- kwsuggest scoring kernel: $kernel (the CPU's flags; \`ScoringKernel.best\` picks AVX2 + FMA when both are present)"
    echo "- Load average (1/5/15 min) before the run: $LOAD_BEFORE; after: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews the numbers)"
    echo "- Load generator: $(wrk -v 2>&1 | head -n 1 | cut -d' ' -f1-2), on the same 2 cores as the server (it competes with the server for CPU)"
    if [ "$SKIP_KWSUGGEST" != 1 ]; then
        echo "- kwsuggest: \`$KWSUGGEST_BIN serve --host 127.0.0.1 --port 0${KWSUGGEST_ARGS:+ $KWSUGGEST_ARGS}\`; access log on stderr to a file ($KWSUGGEST_LOG_BYTES bytes)"
        echo "- suggest body: \`{\"name\": <one of 8 product names, rotating>, \"k\": 5}\`; sample answer: \`$(cat "$WORK/kwsuggest.sample" 2>/dev/null)\`"
    fi
    if [ -n "$FLYINGFOX_BIN" ]; then echo "- FlyingFox peer: \`$FLYINGFOX_BIN <port>\` (GET /healthz only)"; fi
    if [ -n "$HUMMINGBIRD_BIN" ]; then echo "- Hummingbird peer: \`$HUMMINGBIRD_BIN <port>\` (GET /healthz only)"; fi
    echo
    echo "Each row: median over $ROUNDS round(s) (req/s range = lowest–highest round); non-2xx and socket errors summed."
    echo
    echo "| server | route | connections | wrk threads | req/s | req/s range | p50 ms | p99 ms | non-2xx | socket errors | server CPU µs/req |"
    echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    for label in "${SERVERS[@]}"; do
        for route in /healthz /v1/suggest; do
            if [ "$route" = /v1/suggest ] && [ "$label" != kwsuggest ]; then continue; fi
            for conns in $CONNECTIONS; do
                read -r threads rps p50 p99 non2xx errors cpu min max <<< "$(summary "$label" "$route" "$conns")"
                echo "| $label | $route | $conns | $threads | $rps | $min–$max | $p50 | $p99 | $non2xx | $errors | $cpu |"
            done
        done
    done
    echo
    echo "Per-round rows (round, server, route, connections, wrk threads, req/s, p50 ms, p99 ms, non-2xx, socket errors, CPU µs/req):"
    echo
    echo '```'
    cat "$RESULTS"
    echo '```'
    echo
    echo "Server CPU µs/req: the server process's user + system CPU time during the row, divided by the"
    echo "requests wrk completed (from /proc/<pid>/stat, ${CLK_TCK} ticks/s): cost per request, whatever wrk takes."
    echo
    if [ "$SKIP_KWSUGGEST" != 1 ] && [ "${#SERVERS[@]}" -gt 1 ]; then
        echo "Throughput ratios on GET /healthz (kwsuggest req/s ÷ peer req/s; > 1 means kwsuggest is faster):"
        echo
        header="| connections |"; rule="| ---: |"
        for s in "${SERVERS[@]:1}"; do header+=" kwsuggest / $s |"; rule+=" ---: |"; done
        echo "$header"; echo "$rule"
        for c in $CONNECTIONS; do
            row="| $c |"
            for s in "${SERVERS[@]:1}"; do row+=" $(ratio "$(rps_of kwsuggest /healthz "$c")" "$(rps_of "$s" /healthz "$c")") |"; done
            echo "$row"
        done
    elif [ -n "$FLYINGFOX_BIN" ] && [ -n "$HUMMINGBIRD_BIN" ]; then
        echo "Throughput ratios on GET /healthz (Hummingbird req/s ÷ FlyingFox req/s):"
        echo
        echo "| connections | Hummingbird / FlyingFox |"
        echo "| ---: | ---: |"
        for c in $CONNECTIONS; do
            echo "| $c | $(ratio "$(rps_of Hummingbird /healthz "$c")" "$(rps_of FlyingFox /healthz "$c")") |"
        done
    fi
} > "$OUT"

cat "$OUT"
echo "http.sh: report written to $OUT" >&2
