# delta-explain in a small image: built in a Rust image, run from Debian slim.
#   docker build -t delta-explain .
#   docker run --rm -v "$PWD/../shared/fixtures/taxi-nyc:/table:ro" delta-explain /table -w "pickup_date = '2024-01-03'"
FROM rust:1-slim-bookworm AS build
WORKDIR /src
COPY . .
# The dist profile (Cargo.toml): thin LTO, stripped symbols.
RUN cargo install --locked --profile dist --path delta-explain --root /out

FROM debian:bookworm-slim
# CA certificates for object stores over HTTPS; nothing else is needed at run time.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/bin/delta-explain /usr/local/bin/delta-explain
USER 65534:65534
ENTRYPOINT ["delta-explain"]
CMD ["--help"]
