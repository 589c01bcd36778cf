# olm-rbac as a container: a kpt/kustomize container function, and the base of
# the Argo CD sidecar. Build:  docker build -t olm-rbac:dev .
#
# The build stage runs the same commands as .ci/run's last step, so a green CI
# means this stage builds.
FROM docker.io/library/rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked \
 && ./target/release/olm-rbac --version

# glibc and libgcc only, no shell, runs as uid 65532.
FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/target/release/olm-rbac /usr/local/bin/olm-rbac
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/olm-rbac"]
