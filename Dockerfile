# kwsuggest: the suggestion API and admin page in a small runtime image.
#
#   docker build -t kwsuggest .
#   docker run --rm -p 8080:8080 kwsuggest
#
# Keyword changes (POST /v1/keywords) are written to /app/models/default/keywords.overlay.json. To keep them
# across containers, or to share them between replicas, mount a volume and point --overlay at it, e.g.
#   docker run -v kw:/data kwsuggest kwsuggest serve --host 0.0.0.0 --overlay /data/keywords.overlay.json
# tools/docker/replay.sh replays the build and run steps below on a machine without a Docker engine.

# The toolchain this repository is built and tested with (swift --version: 6.3.1).
ARG SWIFT_VERSION=6.3

# ---- build: a Swift 6 toolchain compiles a release binary with the Swift runtime linked in statically.
FROM swift:${SWIFT_VERSION}-bookworm AS build
WORKDIR /src
# Package.swift declares the test targets, so their folders must exist for the manifest to load.
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product kwsuggest --static-swift-stdlib \
    && install -D -m 0755 "$(swift build -c release --show-bin-path)/kwsuggest" /out/usr/local/bin/kwsuggest

# ---- runtime: Debian slim, the binary and the default model, a non-root user.
FROM debian:bookworm-slim
# The binary (Swift runtime and Foundation linked in statically) needs only libc, libm, libstdc++ and
# libgcc_s from the base image (replay.sh checks with ldd).
RUN groupadd --system --gid 10001 kwsuggest \
    && useradd --system --uid 10001 --gid kwsuggest --home-dir /app --no-create-home --shell /usr/sbin/nologin kwsuggest
WORKDIR /app
COPY --from=build /out/usr/local/bin/kwsuggest /usr/local/bin/kwsuggest
COPY --chown=kwsuggest:kwsuggest models/default ./models/default
ENV KWSUGGEST_MODEL=/app/models/default \
    PORT=8080
USER 10001:10001
EXPOSE 8080
# bash's /dev/tcp keeps curl out of the image; the check passes only on "HTTP/1.1 200".
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${PORT:-8080} && printf 'GET /healthz HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q '^HTTP/1.1 200'"]
STOPSIGNAL SIGTERM
CMD ["kwsuggest", "serve", "--host", "0.0.0.0"]
