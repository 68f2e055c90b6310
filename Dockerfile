# capicua's image: capicua-server and capicua-bot built from source, on a
# small runtime image, run as a non-root user. The book's "Tournaments in Docker" (book/src/organising/docker.md).
#
#   docker-compose up --build        (docker-compose.yml builds this file)
#   docker build -t capicua:local .
#
# Plain Dockerfile syntax (no RUN --mount), so both the legacy builder and
# BuildKit build it. The two base images are build arguments: official
# images by default; where no registry can be reached, docker/local-images.sh
# makes stand-ins from Debian packages. Keep both on the same Debian release:
# the binaries link against the builder's glibc.
#
# With both binaries in docker/prebuilt (docker/drill.sh puts them there for
# CAPICUA_DRILL_BINARIES: built on the host, stripped), the build stage
# copies them instead of compiling, and any image with sh and cp can be
# BUILDER_IMAGE (docker/cargo-build.sh).
ARG BUILDER_IMAGE=rust:1-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

# Splits the context into what the dependencies need (manifests, the lock
# file, empty targets, fetched crates if any) and the workspace sources.
FROM ${BUILDER_IMAGE} AS sources
WORKDIR /context
COPY . .
RUN sh docker/plan-build.sh /context /plan

FROM ${BUILDER_IMAGE} AS build
WORKDIR /src
# This layer and the dependency build below are reused until a manifest or
# Cargo.lock changes: a code change rebuilds only the workspace's crates.
COPY --from=sources /plan/deps/ ./
RUN sh docker/cargo-build.sh dependencies
COPY --from=sources /plan/src/ ./
RUN sh docker/cargo-build.sh binaries /out

FROM ${RUNTIME_IMAGE}
# A fixed uid and gid, so volume files keep one owner across image rebuilds.
RUN groupadd --system --gid 10001 capicua \
 && useradd --system --uid 10001 --gid capicua --home-dir /data --no-create-home --shell /usr/sbin/nologin capicua \
 && mkdir -p /data /state /etc/capicua \
 && chown capicua:capicua /data /state
COPY --from=build /out/ /usr/local/bin/
COPY docker/serve.sh /usr/local/bin/capicua-serve
COPY docker/bot-slot.sh /usr/local/bin/capicua-bot-slot
COPY docker/create-tournament.sh /usr/local/bin/capicua-create-tournament
COPY docker/tournament.toml /etc/capicua/tournament.toml
# Variant files a tournament may name (variants = ["/opt/capicua/variants/x.toml"]).
COPY variants /opt/capicua/variants
USER capicua
WORKDIR /data
ENV CAPICUA_DATABASE=/data/capicua.db CAPICUA_LISTEN=0.0.0.0:8080
EXPOSE 8080
HEALTHCHECK --interval=5s --timeout=4s --start-period=20s --retries=3 \
  CMD ["capicua-server", "health", "--timeout-ms", "3000"]
# No ENTRYPOINT: `docker run IMAGE capicua-bot ...` and `docker-compose exec
# server capicua-server standings` run the binaries directly.
CMD ["capicua-serve"]
