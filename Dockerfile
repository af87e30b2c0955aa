# The nqueens-count program in a small image, for the cluster set-ups of scripts/cluster/
# (a Kubernetes Indexed Job) and any machine with a container runtime:
#
#   docker build -t nqueens-count:latest .        # or: podman build -t nqueens-count:latest .
#   docker run --rm nqueens-count:latest 12       # the program is the entry point
#
# The builder stage compiles the release binary from Cargo.lock (--locked); the image holds
# only that binary on Debian slim (it keeps /bin/sh, which the Kubernetes manifest runs), and
# runs as an unprivileged user whose home, /work, is the working folder.

FROM rust:1.89-slim-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin nqueens-count \
    && install -m 0755 target/release/nqueens-count /usr/local/bin/nqueens-count

FROM debian:bookworm-slim
RUN useradd --uid 10001 --user-group --home-dir /work --create-home --shell /usr/sbin/nologin nqueens
COPY --from=build /usr/local/bin/nqueens-count /usr/local/bin/nqueens-count
USER 10001:10001
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/nqueens-count"]
CMD ["--help"]
