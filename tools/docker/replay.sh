#!/usr/bin/env bash
# Replays the Dockerfile's build and run steps without a Docker engine, in a scratch directory, with the
# same commands: copy the build context the way COPY + .dockerignore would, run the build stage's RUN,
# lay out the runtime filesystem, then start the CMD as an unprivileged user with the image's ENV and
# run the HEALTHCHECK command against it. Checks the runtime libraries the binary needs (ldd).
#
# Usage: tools/docker/replay.sh            (takes a few minutes: a clean release build)
# Environment: KEEP=1 keeps the scratch directory. Needs: the local Swift toolchain, setpriv, curl.
#
# What it cannot check: that the swift:${SWIFT_VERSION}-bookworm and debian:bookworm-slim images exist and
# match this machine (it uses the local toolchain and the local Debian), and Docker's own layer handling.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
DOCKERFILE=$ROOT/Dockerfile

# The commands below are copied from the Dockerfile; fail if they drift apart.
BUILD_CMD='swift build -c release --product kwsuggest --static-swift-stdlib'
INSTALL_CMD='install -D -m 0755 "$(swift build -c release --show-bin-path)/kwsuggest" /out/usr/local/bin/kwsuggest'
for needle in "$BUILD_CMD" "$INSTALL_CMD" 'COPY Package.swift ./' 'COPY Sources ./Sources' 'COPY Tests ./Tests' \
              'COPY --chown=kwsuggest:kwsuggest models/default ./models/default' 'ENV KWSUGGEST_MODEL=/app/models/default' \
              'PORT=8080' 'USER 10001:10001' 'EXPOSE 8080' 'CMD ["kwsuggest", "serve", "--host", "0.0.0.0"]' \
              'exec 3<>/dev/tcp/127.0.0.1/${PORT:-8080}'; do
    grep -qF -- "$needle" "$DOCKERFILE" || { echo "replay.sh: the Dockerfile no longer contains: $needle" >&2; exit 1; }
done

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/kwsuggest-docker.XXXXXX")
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    if [ "${KEEP:-0}" = 1 ]; then echo "kept $SCRATCH"; else rm -rf "$SCRATCH"; fi
}
trap cleanup EXIT
step() { printf '\n== %s\n' "$*"; }

step "context: COPY Package.swift, Sources, Tests (build stage) honouring .dockerignore"
mkdir -p "$SCRATCH/build/src" "$SCRATCH/rootfs/app" "$SCRATCH/rootfs/usr/local/bin"
cp Package.swift "$SCRATCH/build/src/"
cp -r Sources Tests "$SCRATCH/build/src/"
find "$SCRATCH/build/src" \( -name '*.pyc' -o -name '__pycache__' -o -name '*.png' \) -prune -exec rm -rf {} +

step "build stage: RUN $BUILD_CMD && install"
START=$(date +%s)
( cd "$SCRATCH/build/src" && eval "$BUILD_CMD" 2>&1 | tail -3 \
  && eval "${INSTALL_CMD//\/out/$SCRATCH/build/out}" )
echo "build took $(( $(date +%s) - START )) s"

step "runtime stage: COPY --from=build binary, COPY models/default (without a local overlay file)"
cp "$SCRATCH/build/out/usr/local/bin/kwsuggest" "$SCRATCH/rootfs/usr/local/bin/kwsuggest"
mkdir -p "$SCRATCH/rootfs/app/models"
cp -r models/default "$SCRATCH/rootfs/app/models/default"
rm -f "$SCRATCH/rootfs/app/models/default/keywords.overlay.json"
chown -R 10001:10001 "$SCRATCH/rootfs/app/models/default"
chmod 755 "$SCRATCH" "$SCRATCH/rootfs" "$SCRATCH/rootfs/app" "$SCRATCH/rootfs/app/models"
ls -la "$SCRATCH/rootfs/usr/local/bin/kwsuggest"
du -sh "$SCRATCH/rootfs/app/models/default"

step "runtime libraries (must all be in debian:bookworm-slim: libc, libm, libstdc++, libgcc_s)"
ldd "$SCRATCH/rootfs/usr/local/bin/kwsuggest" | tee "$SCRATCH/ldd.txt"
if grep -Eq 'not found|libswift|libFoundation|libicu|libcurl|libxml' "$SCRATCH/ldd.txt"; then
    echo "replay.sh: the binary needs a library the slim image lacks" >&2; exit 1
fi

step "CMD as uid 10001 with ENV KWSUGGEST_MODEL=/app/models/default PORT=<free port> (8080 in the image)"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 18080)
cd "$SCRATCH/rootfs/app"
env -i PATH="$SCRATCH/rootfs/usr/local/bin:/usr/bin:/bin" KWSUGGEST_MODEL="$SCRATCH/rootfs/app/models/default" PORT="$PORT" \
    setpriv --reuid=10001 --regid=10001 --clear-groups \
    kwsuggest serve --host 0.0.0.0 > "$SCRATCH/stdout" 2> "$SCRATCH/stderr" &
SERVER_PID=$!
cd "$ROOT"
for _ in $(seq 100); do grep -q "listening on" "$SCRATCH/stdout" 2>/dev/null && break; sleep 0.1; done
cat "$SCRATCH/stdout"

step "HEALTHCHECK command"
for _ in $(seq 50); do
    if PORT=$PORT bash -c 'exec 3<>/dev/tcp/127.0.0.1/${PORT:-8080} && printf '"'"'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'"'"' >&3 && head -n 1 <&3 | grep -q "^HTTP/1.1 200"'; then
        echo "healthy"; break
    fi
    sleep 0.1
done

step "smoke test: readyz, suggest, keyword write as the non-root user"
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/readyz" && break; sleep 0.1; done; echo
curl -sf -X POST "http://127.0.0.1:$PORT/v1/suggest" -H 'Content-Type: application/json' -d '{"name":"淡路島産 カラーにんじん 3本","k":3}'; echo
curl -sf -X POST "http://127.0.0.1:$PORT/v1/keywords" -H 'Content-Type: application/json' -d '{"add":["replay-test-keyword"]}' -o "$SCRATCH/keywords.json"
grep -o '"count":[0-9]*' "$SCRATCH/keywords.json"
ls -la "$SCRATCH/rootfs/app/models/default/keywords.overlay.json"

step "docker stop (SIGTERM): drains and exits 0"
kill -TERM "$SERVER_PID"
set +e; wait "$SERVER_PID"; STATUS=$?; set -e
SERVER_PID=""
tail -3 "$SCRATCH/stderr"
echo "exit status: $STATUS"
[ "$STATUS" = 0 ] || { echo "replay.sh: serve did not exit 0" >&2; exit 1; }
echo; echo "replay OK"
