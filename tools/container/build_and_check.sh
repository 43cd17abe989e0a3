#!/usr/bin/env bash
# shellcheck disable=SC2016  # bash -c '…' scripts take their arguments as "$1" on purpose
# Builds the project's Dockerfile with a real container engine (podman) and checks the running image.
#
# No registry is reachable here, so the Dockerfile's base images are built locally first and tagged with the
# names its FROM lines use:
#   debian:bookworm-slim      debootstrap --variant=minbase bookworm, slimmed the way Debian's slim images are
#                             (dpkg excludes for docs, man pages and locales; no apt lists or caches);
#   swift:<ver>-bookworm      that plus the libraries the toolchain needs (swift-bookworm.Containerfile); the
#                             toolchain itself is this machine's, mounted read-only at the same path.
# The root file system is cached in $CACHE, the base images stay in podman's store, so reruns skip both.
# Then `podman build --pull=never` builds the Dockerfile unchanged, runs the image and checks:
#   the HEALTHCHECK survived (docker format), ldd finds every library, libpq.so.5 is present;
#   without KWSUGGEST_ADMIN_TOKEN the image's CMD refuses to start (open writes on 0.0.0.0);
#   /readyz, a suggestion, `podman healthcheck run`, the process's uid is not 0;
#   keyword writes need the token from KWSUGGEST_ADMIN_TOKEN;
#   with --read-only and a volume for the overlay, a keyword survives a new container (found by reading the
#   paged keyword list, GET /v1/keywords?prefix=…&offset=…);
#   `podman stop` (SIGTERM) exits 0 within the drain time, after answering a request still in flight;
#   when the binary has `serve --store`: two replicas on a throwaway PostgreSQL share a keyword edit, and
#   through a PostgreSQL outage keep suggesting (writes answer 503) and agree again once it is back;
# and prints the build time, the image size, what libpq5 adds, and the memory the server uses.
# The last line is "N passed, N failed"; the exit status is 1 when any check failed.
#
# Usage: tools/container/build_and_check.sh
#   (root; about 30 s when nothing the image copies changed, 2-4 min when Sources did (a release build
#   inside), about 6 min cold with the debootstrap; measured on a 2-core machine under load)
# Environment: CACHE (default /var/cache/kwsuggest-container), SWIFT_DIR (default /opt/swift),
#   NO_CACHE=1 rebuilds every Dockerfile layer, REBUILD_BASES=1 rebuilds the stand-in base images,
#   IMAGE (default localhost/kwsuggest:check), KEEP=1 keeps the image.
# Needs: podman, runc, debootstrap, curl, python3 (free port), root; PostgreSQL for the replica check
# (through tools/postgres/throwaway.sh).
#
# Podman on these machines needs two settings: --runtime runc (crun rejects the hybrid cgroups) and explicit
# ulimits (the default ones are refused). --format docker keeps the HEALTHCHECK, which the OCI format drops.
set -euo pipefail
cd "$(dirname "$0")/../.."
CACHE=${CACHE:-/var/cache/kwsuggest-container}
SWIFT_DIR=${SWIFT_DIR:-/opt/swift}
IMAGE=${IMAGE:-localhost/kwsuggest:check}
SUITE=ck$$
PODMAN=(podman --runtime runc)
ULIMITS=(--ulimit nofile=1024:1024 --ulimit nproc=1024:1024)
TOKEN=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
DRAIN_SECONDS=10          # the server's drainTimeout after SIGTERM

PASSED=0; FAILED=0
pass() { PASSED=$((PASSED + 1)); printf 'PASS  %s\n' "$*"; }
fail() { FAILED=$((FAILED + 1)); printf 'FAIL  %s\n' "$*"; }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }
step() { printf '\n== %s\n' "$*"; }
now() { date +%s.%N; }
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(now)"; }
mb() { python3 -c "import sys; print(f'{int(sys.argv[1]) / 1e6:.1f} MB')" "$1"; }   # decimal, as podman images prints

# serves_keyword URL KEYWORD: whether the server's keyword list holds KEYWORD, reading the paged list
# (GET /v1/keywords?prefix=…&offset=…) page by page until the keywords starting with it are all seen.
serves_keyword() {
    python3 - "$1" "$2" <<'PY'
import json, sys, urllib.parse, urllib.request
url, keyword = sys.argv[1], sys.argv[2]
offset = 0
while True:
    query = urllib.parse.urlencode({"prefix": keyword, "offset": offset})
    with urllib.request.urlopen(f"{url}/v1/keywords?{query}", timeout=5) as response:
        page = json.load(response)
    if keyword in page["keywords"]:
        sys.exit(0)
    offset += len(page["keywords"])
    if not page["keywords"] or offset >= page["matched"]:
        sys.exit(1)
PY
}

# Without systemd, podman cannot create the timer that would run the HEALTHCHECK periodically and says so on
# every run and stop; `podman healthcheck run` below runs the check itself.
quiet() { grep -v 'systemd connection' || true; }

CONTAINERS=()
cleanup() {
    for c in "${CONTAINERS[@]}"; do "${PODMAN[@]}" rm -f -t 0 "$c" >/dev/null 2>&1 || true; done
    "${PODMAN[@]}" volume rm -f "$SUITE-data" >/dev/null 2>&1 || true
    if [ -n "${PGDIR:-}" ]; then tools/postgres/throwaway.sh stop "$PGDIR" >/dev/null 2>&1 || true; fi
    if [ "${KEEP:-0}" != 1 ]; then "${PODMAN[@]}" rmi -f "$IMAGE" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

[ "$(id -u)" = 0 ] || { echo "build_and_check.sh: run as root (rootful podman, debootstrap)" >&2; exit 1; }
for tool in podman runc debootstrap curl python3; do
    command -v "$tool" >/dev/null || { echo "build_and_check.sh: needs $tool (apt-get install podman runc debootstrap curl)" >&2; exit 1; }
done
[ -x "$SWIFT_DIR/usr/bin/swift" ] || { echo "build_and_check.sh: no Swift toolchain at $SWIFT_DIR" >&2; exit 1; }

# The names the Dockerfile's FROM lines use.
SWIFT_VERSION=$(sed -n 's/^ARG SWIFT_VERSION=//p' Dockerfile)
BUILD_BASE=$(sed -n 's/^FROM \([^ ]*\) AS build$/\1/p' Dockerfile | sed "s/\${SWIFT_VERSION}/$SWIFT_VERSION/")
RUNTIME_BASE=$(grep '^FROM ' Dockerfile | grep -v ' AS build' | tail -n 1 | awk '{print $2}')
echo "Dockerfile bases: build $BUILD_BASE, runtime $RUNTIME_BASE"

# ---------------------------------------------------------------- stand-in base images
# Debian's slim images exclude these paths through dpkg, so later apt-get installs leave them out too.
write_slim_config() {
    local rootfs=$1
    cat > "$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
# Slim image: no documentation, manual pages or translations (copyright files stay).
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/overrides/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/man/*
EOF
    cat > "$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
    printf 'Acquire::Languages "none";\n' > "$rootfs/etc/apt/apt.conf.d/docker-no-languages"
    rm -f "$rootfs/etc/apt/sources.list"
    cat > "$rootfs/etc/apt/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
    find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
    rm -rf "$rootfs/usr/share/groff/"* "$rootfs/usr/share/info/"* "$rootfs/usr/share/linda/"* \
           "$rootfs/usr/share/lintian/overrides/"* "$rootfs/usr/share/locale/"* "$rootfs/usr/share/man/"*
    rm -rf "$rootfs/var/lib/apt/lists/"* "$rootfs/var/cache/apt/"*.bin "$rootfs/var/cache/apt/archives/"*.deb \
           "$rootfs/var/log/"*.log "$rootfs/var/log/apt/"* "$rootfs/debootstrap"
}

ROOTFS_TAR=$CACHE/bookworm-slim-rootfs.tar
if [ "${REBUILD_BASES:-0}" = 1 ] || [ ! -s "$ROOTFS_TAR" ]; then
    step "debootstrap --variant=minbase bookworm (cached in $CACHE)"
    mkdir -p "$CACHE"
    WORK=$CACHE/rootfs.tmp
    rm -rf "$WORK"
    START=$(now)
    debootstrap --variant=minbase bookworm "$WORK" http://deb.debian.org/debian > "$CACHE/debootstrap.log" 2>&1 \
        || { tail -n 20 "$CACHE/debootstrap.log"; exit 1; }
    echo "debootstrap took $(elapsed "$START") s; minbase root file system: $(du -sh "$WORK" | cut -f1)"
    write_slim_config "$WORK"
    echo "after the slim treatment: $(du -sh "$WORK" | cut -f1)"
    tar --numeric-owner -C "$WORK" -cf "$ROOTFS_TAR.tmp" .
    mv "$ROOTFS_TAR.tmp" "$ROOTFS_TAR"
    rm -rf "$WORK"
    REBUILD_BASES=1
fi

if [ "${REBUILD_BASES:-0}" = 1 ] || ! "${PODMAN[@]}" image exists "$RUNTIME_BASE"; then
    step "podman import → $RUNTIME_BASE"
    "${PODMAN[@]}" import --change 'CMD ["bash"]' "$ROOTFS_TAR" "$RUNTIME_BASE" >/dev/null
    # Short names resolve to docker.io/library/… as well as localhost/…; tag both so FROM finds it either way.
    "${PODMAN[@]}" tag "$RUNTIME_BASE" "docker.io/library/$RUNTIME_BASE"
fi
if [ "${REBUILD_BASES:-0}" = 1 ] || ! "${PODMAN[@]}" image exists "$BUILD_BASE"; then
    step "podman build → $BUILD_BASE (bookworm + toolchain libraries; toolchain mounted from $SWIFT_DIR)"
    "${PODMAN[@]}" build --pull=never --network host --format docker "${ULIMITS[@]}" \
        --build-arg BASE="$RUNTIME_BASE" --build-arg SWIFT_DIR="$SWIFT_DIR" \
        -t "$BUILD_BASE" -f tools/container/swift-bookworm.Containerfile tools/container
    "${PODMAN[@]}" tag "$BUILD_BASE" "docker.io/library/$BUILD_BASE"
fi
BASE_SIZE=$("${PODMAN[@]}" image inspect --format '{{.Size}}' "$RUNTIME_BASE")
echo "runtime base $RUNTIME_BASE: $(mb "$BASE_SIZE")"

# ---------------------------------------------------------------- the real build
step "podman build --pull=never the Dockerfile${NO_CACHE:+ (no layer cache)}"
BUILD_FLAGS=(--pull=never --network host --format docker "${ULIMITS[@]}" --volume "$SWIFT_DIR:$SWIFT_DIR:ro")
[ "${NO_CACHE:-0}" = 1 ] && BUILD_FLAGS+=(--no-cache)
START=$(now)
if ! "${PODMAN[@]}" build "${BUILD_FLAGS[@]}" -t "$IMAGE" . > "$CACHE/build.log" 2>&1; then
    tail -n 40 "$CACHE/build.log"; fail "podman build"; echo; echo "$PASSED passed, $FAILED failed"; exit 1
fi
BUILD_SECONDS=$(elapsed "$START")
pass "podman build ($BUILD_SECONDS s)"

IMAGE_SIZE=$("${PODMAN[@]}" image inspect --format '{{.Size}}' "$IMAGE")
HEALTHCHECK=$("${PODMAN[@]}" image inspect --format '{{json .Config.Healthcheck}}' "$IMAGE")
check "image keeps the HEALTHCHECK" grep -q '/healthz' <<< "$HEALTHCHECK"
check "image runs as a non-root user" [ "$("${PODMAN[@]}" image inspect --format '{{.Config.User}}' "$IMAGE")" = "10001:10001" ]

step "libraries"
LDD=$("${PODMAN[@]}" run --rm "${ULIMITS[@]}" --network none "$IMAGE" ldd /usr/local/bin/kwsuggest 2> >(quiet >&2))
echo "$LDD"
check "ldd: every library found, no Swift or ICU libraries needed" \
    bash -c '! grep -Eq "not found|libswift|libFoundation|libicu" <<< "$1"' _ "$LDD"
check "libpq.so.5 is in the image, and ldd finds every library it needs" \
    "${PODMAN[@]}" run --rm "${ULIMITS[@]}" --network none "$IMAGE" \
    bash -c 'lib=$(ldconfig -p | sed -n "s/.*libpq\.so\.5 .*=> //p" | head -n 1) && [ -n "$lib" ] && out=$(ldd "$lib") && ! grep -q "not found" <<< "$out"' \
    2> >(quiet >&2)

# ---------------------------------------------------------------- no token, no open writes
step "the image's CMD without KWSUGGEST_ADMIN_TOKEN"
set +e
CONTAINERS+=("$SUITE-no-token")
timeout 30 "${PODMAN[@]}" run --rm --name "$SUITE-no-token" "${ULIMITS[@]}" --network none "$IMAGE" > "$CACHE/no-token.log" 2>&1
STATUS=$?
set -e
quiet < "$CACHE/no-token.log" | tail -n 2
check "without a token the server refuses to start on 0.0.0.0 (exit $STATUS, says what to set)" \
    bash -c '[ "$1" != 0 ] && [ "$1" != 124 ] && grep -q "KWSUGGEST_ADMIN_TOKEN" "$2"' _ "$STATUS" "$CACHE/no-token.log"

# ---------------------------------------------------------------- run it as docker run would
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_ready() {  # url, seconds → 0 when /readyz answers 200
    local deadline=$(( $(date +%s) + $2 ))
    while [ "$(date +%s)" -lt "$deadline" ]; do
        [ "$(curl -s -o /dev/null -w '%{http_code}' "$1/readyz")" = 200 ] && return 0
        sleep 0.1
    done
    return 1
}
start_container() {  # name, port, extra run arguments… (after the image: the command)
    local name=$1 port=$2; shift 2
    CONTAINERS+=("$name")
    "${PODMAN[@]}" run -d --name "$name" "${ULIMITS[@]}" -p "127.0.0.1:$port:8080" \
        -e KWSUGGEST_ADMIN_TOKEN="$TOKEN" "$@" >/dev/null 2> >(quiet >&2)
}
stop_and_check() {  # name, label
    local name=$1 start status seconds
    start=$(now)
    "${PODMAN[@]}" stop -t $((DRAIN_SECONDS + 5)) "$name" >/dev/null 2> >(quiet >&2)
    seconds=$(elapsed "$start")
    status=$("${PODMAN[@]}" inspect --format '{{.State.ExitCode}}' "$name")
    echo "podman stop took $seconds s, exit status $status"
    [ "$status" = 0 ] || "${PODMAN[@]}" logs "$name" 2>&1 | quiet | tail -n 15
    check "$2: podman stop (SIGTERM) exits 0 within the ${DRAIN_SECONDS} s drain time ($seconds s)" \
        python3 -c 'import sys; sys.exit(0 if sys.argv[1] == "0" and float(sys.argv[2]) < float(sys.argv[3]) else 1)' \
        "$status" "$seconds" "$DRAIN_SECONDS"
    check "$2: the log shows the drain" bash -c '"$@" logs "'"$name"'" 2>&1 | grep -q "\"event\":\"stopped\""' _ "${PODMAN[@]}"
    STOP_SECONDS=$seconds
}

step "docker run -p … -e KWSUGGEST_ADMIN_TOKEN (the image's own CMD)"
PORT=$(free_port); URL=http://127.0.0.1:$PORT; C1=$SUITE-default
START=$(now)
start_container "$C1" "$PORT" "$IMAGE"
if wait_ready "$URL" 30; then pass "/readyz 200 ($(elapsed "$START") s after podman run)"; else fail "/readyz 200"; "${PODMAN[@]}" logs "$C1" | tail -n 20; fi
SUGGEST=$(curl -s -X POST "$URL/v1/suggest" -H 'Content-Type: application/json' -d '{"name":"農家直送 メークイン 1kg","k":3}')
echo "suggest: $SUGGEST"
check "a suggestion: じゃがいも first for 農家直送 メークイン 1kg" \
    python3 -c 'import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if d["suggestions"][0]["keyword"] == "じゃがいも" else 1)' "$SUGGEST"
check "podman healthcheck run: healthy" "${PODMAN[@]}" healthcheck run "$C1"
PID=$("${PODMAN[@]}" inspect --format '{{.State.Pid}}' "$C1")
UIDS=$(awk '/^Uid:/ {print $2, $3, $4, $5}' "/proc/$PID/status")
echo "serve process (host pid $PID): uids $UIDS, RSS $(awk '/^VmRSS:/ {print $2, $3}' "/proc/$PID/status") once ready"
check "the server process runs as uid 10001, not root" [ "$UIDS" = "10001 10001 10001 10001" ]
WRITE='{"add":["container-check-keyword"]}'
check "POST /v1/keywords without the token: 401" \
    [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL/v1/keywords" -H 'Content-Type: application/json' -d "$WRITE")" = 401 ]
check "POST /v1/keywords with the token from KWSUGGEST_ADMIN_TOKEN: 200" \
    [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL/v1/keywords" -H 'Content-Type: application/json' \
         -H "Authorization: Bearer $TOKEN" -d "$WRITE")" = 200 ]
check "/metrics answers in Prometheus text format" bash -c 'curl -s "$1/metrics" | grep -q "^# TYPE kwsuggest_http_requests_total counter"' _ "$URL"
# Memory after some traffic: 300 single suggestions and a batch of 1000 names.
for _ in $(seq 300); do
    curl -s -o /dev/null -X POST "$URL/v1/suggest" -H 'Content-Type: application/json' -d '{"name":"国産豚バラ肉 500g"}'
done
python3 -c 'import json; print(json.dumps({"names": ["農家直送 メークイン 1kg"] * 1000}))' > "$CACHE/batch.json"
curl -s -o /dev/null -X POST "$URL/v1/suggest/batch" -H 'Content-Type: application/json' --data-binary @"$CACHE/batch.json"
echo "after 300 suggestions and a batch of 1000: RSS $(awk '/^VmRSS:/ {print $2, $3}' "/proc/$PID/status"), peak $(awk '/^VmHWM:/ {print $2, $3}' "/proc/$PID/status")"
# The drain, with a request in flight: a client sends the headers and part of the body, podman stop sends
# SIGTERM, and 2 s later the client sends the rest. The server must answer it, then exit 0.
python3 - "$PORT" > "$CACHE/in-flight.txt" 2>&1 <<'PY' &
import json, socket, sys, time
body = json.dumps({"name": "農家直送 メークイン 1kg"}).encode()
head = ("POST /v1/suggest HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        "Content-Length: %d\r\n\r\n" % len(body)).encode()
client = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=20)
client.sendall(head + body[:5])
print("sent part", flush=True)
time.sleep(2)
client.sendall(body[5:])
answer = b""
while chunk := client.recv(65536):
    answer += chunk
print(answer.decode("utf-8", "replace"))
PY
CLIENT=$!
for _ in $(seq 50); do grep -q 'sent part' "$CACHE/in-flight.txt" 2>/dev/null && break; sleep 0.1; done
stop_and_check "$C1" "default, a request in flight"
wait "$CLIENT" || true
sed -n '2,3p' "$CACHE/in-flight.txt"
check "the request in flight during the drain was answered: 200, じゃがいも" \
    bash -c 'grep -q "^HTTP/1.1 200" "$1" && grep -q "じゃがいも" "$1"' _ "$CACHE/in-flight.txt"

step "read-only root file system, overlay on a volume (what the single-replica Kubernetes example does)"
"${PODMAN[@]}" volume create "$SUITE-data" >/dev/null
for round in 1 2; do
    PORT=$(free_port); URL=http://127.0.0.1:$PORT; C=$SUITE-readonly-$round
    # --read-only-tmpfs=false: no writable /tmp or /run either, as with readOnlyRootFilesystem in Kubernetes.
    start_container "$C" "$PORT" --read-only --read-only-tmpfs=false -v "$SUITE-data:/data" \
        "$IMAGE" kwsuggest serve --host 0.0.0.0 --overlay /data/keywords.overlay.json
    if wait_ready "$URL" 30; then pass "read-only #$round: /readyz 200"; else fail "read-only #$round: /readyz 200"; "${PODMAN[@]}" logs "$C" | tail -n 20; fi
    if [ "$round" = 1 ]; then
        check "read-only #1: a keyword write lands on the volume" \
            [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL/v1/keywords" -H 'Content-Type: application/json' \
                 -H "Authorization: Bearer $TOKEN" -d '{"add":["volume-check-keyword"]}')" = 200 ]
    else
        check "read-only #2: a new container sees the keyword written by the first" \
            serves_keyword "$URL" volume-check-keyword
    fi
    stop_and_check "$C" "read-only #$round"
done

# ---------------------------------------------------------------- replicas on PostgreSQL
# Only when the binary has the store (`serve --store`): a throwaway PostgreSQL cluster on a free loopback port
# (password authentication), two containers on the host network as two replicas with KWSUGGEST_STORE and
# PGPASSWORD as in deploy/kubernetes/replicas; a keyword written through one is served by the other.
HAS_STORE=no
"${PODMAN[@]}" run --rm "${ULIMITS[@]}" --network none "$IMAGE" kwsuggest serve --help 2> >(quiet >&2) | grep -q -- '--store' && HAS_STORE=yes
if [ "$HAS_STORE" = yes ] && ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
    fail "two replicas on PostgreSQL: needs PostgreSQL (apt-get install postgresql)"
elif [ "$HAS_STORE" = yes ]; then
    step "two replicas sharing keywords through PostgreSQL (libpq5 from the image)"
    # tools/postgres/throwaway.sh: initdb in /tmp, a free loopback port, password authentication. The
    # password goes to the replicas as PGPASSWORD, not in the URL, as in the Kubernetes Secret.
    PG_OUTPUT=$(tools/postgres/throwaway.sh start)
    PGDIR=$(sed -n 2p <<< "$PG_OUTPUT")
    PGPORT=$(cat "$PGDIR/port")
    PGPASSWORD_VALUE=$(cat "$PGDIR/password")
    STORE="postgres://kwsuggest@127.0.0.1:$PGPORT/kwsuggest?sslmode=disable"
    REPLICA_URLS=()
    for replica in a b; do
        RPORT=$(free_port); C=$SUITE-pg-$replica
        CONTAINERS+=("$C")
        "${PODMAN[@]}" run -d --name "$C" "${ULIMITS[@]}" --network host --read-only --read-only-tmpfs=false \
            -e PORT="$RPORT" -e KWSUGGEST_STORE="$STORE" -e PGPASSWORD="$PGPASSWORD_VALUE" \
            -e KWSUGGEST_ADMIN_TOKEN="$TOKEN" "$IMAGE" >/dev/null 2> >(quiet >&2)
        REPLICA_URLS+=("http://127.0.0.1:$RPORT")
    done
    for i in 0 1; do
        if wait_ready "${REPLICA_URLS[$i]}" 30; then pass "replica $i on PostgreSQL: /readyz 200"
        else fail "replica $i on PostgreSQL: /readyz 200"; "${PODMAN[@]}" logs "$SUITE-pg-$([ $i = 0 ] && echo a || echo b)" 2>&1 | tail -n 10; fi
    done
    check "replica 0: a keyword write with the token is stored in PostgreSQL" \
        [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "${REPLICA_URLS[0]}/v1/keywords" -H 'Content-Type: application/json' \
             -H "Authorization: Bearer $TOKEN" -d '{"add":["replica-check-keyword"]}')" = 200 ]
    SEEN=no
    for _ in $(seq 100); do
        serves_keyword "${REPLICA_URLS[1]}" replica-check-keyword 2>/dev/null && { SEEN=yes; break; }
        sleep 0.1
    done
    check "replica 1 serves the keyword written through replica 0 (within 10 s)" [ "$SEEN" = yes ]
    PID=$("${PODMAN[@]}" inspect --format '{{.State.Pid}}' "$SUITE-pg-a")
    echo "replica 0 (libpq loaded, connected): RSS $(awk '/^VmRSS:/ {print $2, $3}' "/proc/$PID/status"), peak $(awk '/^VmHWM:/ {print $2, $3}' "/proc/$PID/status")"
    # A PostgreSQL outage: suggestions go on, keyword writes answer 503, /readyz stays 200 and says so;
    # once PostgreSQL is back the replica reconnects and writes work again.
    tools/postgres/throwaway.sh down "$PGDIR"
    WRITE_STATUS=$(curl -s -o /dev/null -w '%{http_code}' -X POST "${REPLICA_URLS[0]}/v1/keywords" \
        -H 'Content-Type: application/json' -H "Authorization: Bearer $TOKEN" -d '{"add":["outage-keyword"]}' || true)
    check "PostgreSQL down: a keyword write answers 503 (got $WRITE_STATUS), nothing acknowledged is lost" [ "$WRITE_STATUS" = 503 ]
    check "PostgreSQL down: suggestions still answer 200" \
        [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "${REPLICA_URLS[1]}/v1/suggest" -H 'Content-Type: application/json' \
             -d '{"name":"農家直送 メークイン 1kg"}')" = 200 ]
    READY=$(curl -s -w ' %{http_code}' "${REPLICA_URLS[0]}/readyz" || true)
    echo "readyz while PostgreSQL is down: $READY"
    check "PostgreSQL down: /readyz stays 200 and reports the store unavailable" \
        bash -c 'grep -q "unavailable" <<< "$1" && [ "${1##* }" = 200 ]' _ "$READY"
    tools/postgres/throwaway.sh up "$PGDIR"
    BACK=no
    for _ in $(seq 300); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "${REPLICA_URLS[0]}/v1/keywords" -H 'Content-Type: application/json' \
             -H "Authorization: Bearer $TOKEN" -d '{"add":["after-outage-keyword"]}')" = 200 ] && { BACK=yes; break; }
        sleep 0.1
    done
    check "PostgreSQL back: keyword writes work again within 30 s" [ "$BACK" = yes ]
    SEEN=no
    for _ in $(seq 100); do
        serves_keyword "${REPLICA_URLS[1]}" after-outage-keyword 2>/dev/null && { SEEN=yes; break; }
        sleep 0.1
    done
    check "PostgreSQL back: replica 1 serves the keyword written after the outage (within 10 s)" [ "$SEEN" = yes ]
    stop_and_check "$SUITE-pg-a" "replica 0"
    stop_and_check "$SUITE-pg-b" "replica 1"
else
    step "PostgreSQL replicas: not checked, this binary has no 'serve --store'"
fi

# The flags the Kubernetes manifests pass to serve, against this binary's help (reported, not counted: the
# manifests may use a flag of a store that is not merged yet).
HELP=$("${PODMAN[@]}" run --rm "${ULIMITS[@]}" --network none "$IMAGE" kwsuggest serve --help 2> >(quiet >&2) || true)
MISSING=""
for flag in $(grep -ho '"--[a-z-]*"' deploy/kubernetes/*/deployment.yaml | tr -d '"' | sort -u); do
    grep -q -- "$flag" <<< "$HELP" || MISSING="$MISSING $flag"
done
echo "manifest flags this binary's serve does not know:${MISSING:- none}"

# ---------------------------------------------------------------- sizes
step "sizes"
HISTORY=$("${PODMAN[@]}" history --no-trunc --format '{{.Size}}\t{{.CreatedBy}}' "$IMAGE")
LIBPQ_LAYER=$( (grep -m1 'install .*libpq5' <<< "$HISTORY" || true) | cut -f1)
BINARY=$("${PODMAN[@]}" run --rm "${ULIMITS[@]}" --network none "$IMAGE" stat -c %s /usr/local/bin/kwsuggest 2> >(quiet >&2))
MODEL=$("${PODMAN[@]}" run --rm "${ULIMITS[@]}" --network none "$IMAGE" du -sb /app/models/default 2> >(quiet >&2) | cut -f1)
echo "build time:           $BUILD_SECONDS s (podman build${NO_CACHE:+ --no-cache}; log in $CACHE/build.log)"
echo "image $IMAGE: $(mb "$IMAGE_SIZE")"
echo "  runtime base $RUNTIME_BASE (stand-in): $(mb "$BASE_SIZE")"
echo "  libpq5 layer:       ${LIBPQ_LAYER:-?}"
echo "  kwsuggest binary:   $(mb "$BINARY")"
echo "  models/default:     $(mb "$MODEL")"
echo "podman stop:          ${STOP_SECONDS:-?} s (last container)"
echo
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
