# kwsuggest: the suggestion API and admin page in a small runtime image.
#
#   docker build -t kwsuggest .
#   docker run --rm -p 8080:8080 -e KWSUGGEST_ADMIN_TOKEN="$(openssl rand -hex 32)" kwsuggest
#
# The server listens on 0.0.0.0 inside the container, so keyword writes (POST /v1/keywords) need a bearer
# token: pass KWSUGGEST_ADMIN_TOKEN from the environment (a Secret in Kubernetes), never bake it into the image.
#
# Keyword changes are written to /app/models/default/keywords.overlay.json unless told otherwise. To keep them
# across containers, mount a volume and keep the file store there (this also works with a read-only root):
#   docker run --read-only -v kw:/data -e KWSUGGEST_ADMIN_TOKEN=… kwsuggest \
#       kwsuggest serve --host 0.0.0.0 --store file:/data/keywords.overlay.json
# Several replicas share keywords through the PostgreSQL store instead (libpq5 is in the image for that);
# deploy/kubernetes/ has both set-ups. tools/container/build_and_check.sh builds this file with podman and
# checks the running container.

# The toolchain this repository is built and tested with (swift --version: 6.3.1).
ARG SWIFT_VERSION=6.3

# ---- build: a Swift 6 toolchain compiles a release binary with the Swift runtime linked in statically.
FROM swift:${SWIFT_VERSION}-bookworm AS build
WORKDIR /src
# Package.swift declares the test targets, so their folders must exist for the manifest to load.
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
# --strip-debug drops the DWARF sections (most of the file) and keeps the symbol table, so crash backtraces
# still name functions.
RUN swift build -c release --product kwsuggest --static-swift-stdlib \
    && install -D -m 0755 "$(swift build -c release --show-bin-path)/kwsuggest" /out/usr/local/bin/kwsuggest \
    && strip --strip-debug /out/usr/local/bin/kwsuggest

# ---- runtime: Debian slim, libpq5, the binary and the default model, a non-root user.
FROM debian:bookworm-slim
# libpq5 (with its Kerberos, LDAP and OpenSSL dependencies) is what the PostgreSQL store loads at run time;
# its own layer, so `docker history` shows what it adds.
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libpq5 \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log
# The binary (Swift runtime and Foundation linked in statically) needs only libc, libm, libstdc++ and
# libgcc_s from the base image; the container check runs ldd on it.
RUN groupadd --system --gid 10001 kwsuggest \
    && useradd --system --uid 10001 --gid kwsuggest --home-dir /app --no-create-home --shell /usr/sbin/nologin kwsuggest \
    && install -d -o kwsuggest -g kwsuggest -m 0750 /data
WORKDIR /app
COPY --from=build /out/usr/local/bin/kwsuggest /usr/local/bin/kwsuggest
# The model is owned by the service user only so that the default overlay file next to it can be written;
# with a volume (--overlay /data/…) or the PostgreSQL store nothing under /app is written.
COPY --chown=kwsuggest:kwsuggest models/default ./models/default
# The training data the model's recipe names (paths resolve against /app), so the retraining job repeats it.
COPY data/train.jsonl data/train-knowledge.jsonl data/dev.jsonl ./data/
ENV KWSUGGEST_MODEL=/app/models/default \
    PORT=8080
USER 10001:10001
EXPOSE 8080
# bash's /dev/tcp keeps curl out of the image; the check passes only on "HTTP/1.1 200".
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${PORT:-8080} && printf 'GET /healthz HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q '^HTTP/1.1 200'"]
# SIGTERM: stop accepting, finish in-flight requests (up to 10 s), exit 0. Give `docker stop -t` more than that.
STOPSIGNAL SIGTERM
CMD ["kwsuggest", "serve", "--host", "0.0.0.0"]
