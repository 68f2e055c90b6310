# capicua's runtime image: the server and the bot client, nothing else.
#
# No registry is needed: the binaries are built on the host and copied in,
# onto a local base image made from Debian packages (docker/build-base.sh:
# debootstrap of bookworm, the release the binaries link against).
#
#   sudo docker/build-base.sh                      # once: capicua-base:bookworm
#   cargo build --release -p capicua-server -p capicua-bot
#   docker-compose up                               # docker-compose.yml beside this file
ARG BASE=capicua-base:bookworm
FROM ${BASE}
COPY target/release/capicua-server target/release/capicua-bot /usr/local/bin/
COPY variants /opt/capicua/variants
COPY tournament/examples /examples
WORKDIR /data
EXPOSE 8080
ENV CAPICUA_DATABASE=/data/capicua.db CAPICUA_LISTEN=0.0.0.0:8080
CMD ["capicua-server", "serve"]
