# karmada-interpreter container image.
#
#   docker build -t karmada-interpreter:latest .
#
# Stage 1 builds the release binary with the locked dependency set; stage 2 is
# a distroless runtime (glibc + libgcc only, no shell, no package manager) that
# runs as the unprivileged `nonroot` user (uid 65532).

FROM docker.io/library/rust:1.95-slim-bookworm AS build
WORKDIR /src
# Lua is vendored and compiled from C by the build (crates/lua-src).
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev make && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cargo build --release --locked --bin karmada-interpreter

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/target/release/karmada-interpreter /usr/local/bin/karmada-interpreter
USER 65532:65532
EXPOSE 8443
ENTRYPOINT ["/usr/local/bin/karmada-interpreter"]
CMD ["serve", "--listen=0.0.0.0:8443", "--cert-dir=/tmp/certs"]
