# korpd for docker-compose.yml: built on Debian 12, as on the project's machines.
FROM debian:12 AS build
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake pkg-config libmicrohttpd-dev libpq-dev libcjson-dev \
      libcurl4-openssl-dev libcmocka-dev libssl-dev libargon2-dev python3 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j"$(nproc)" --target korpd korp

FROM debian:12-slim
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libmicrohttpd12 libpq5 libcjson1 libcurl4 libssl3 libargon2-1 ca-certificates curl \
      && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/build/korpd/korpd /src/build/cli/korp /usr/local/bin/
USER nobody
EXPOSE 8080
ENV KORP_LISTEN=0.0.0.0:8080
HEALTHCHECK CMD curl -sf http://127.0.0.1:8080/healthz || exit 1
ENTRYPOINT ["/usr/local/bin/korpd"]
