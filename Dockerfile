# syntax=docker/dockerfile:1
# mvpctl for CI jobs: a static binary on distroless, running as non-root (65532).
#
#   make image-docker # docker build -t ghcr.io/mvpctl/mvpctl:main (the name and tag that
#                     # deploy/exporter names) with VERSION, COMMIT and BUILD_DATE (the commit's
#                     # time, not the clock's) as make build stamps them
#
# `make image` builds the same image's contents without a daemon (tools/imagebuild): the
# release workflow publishes that one.
#
# The build stage runs on the builder's platform and cross-compiles for the target's
# (TARGETOS/TARGETARCH, set by BuildKit): `docker buildx build --platform
# linux/amd64,linux/arm64` builds both without emulation.
#
#   # A kubeconfig is mode 0600 and its owner's: run as that owner (--user) and mount the one
#   # file; --network host (Linux) lets a cluster on this machine's loopback (kind, minikube)
#   # be reached at the kubeconfig's 127.0.0.1 address.
#   docker run --rm --user "$(id -u):$(id -g)" --network host -e KUBECONFIG=/kubeconfig \
#     -v "${KUBECONFIG:-$HOME/.kube/config}:/kubeconfig:ro" ghcr.io/mvpctl/mvpctl:main routes
#
# The image has no shell and no credential plugins: a kubeconfig that needs an exec
# plugin (aws, gke-gcloud-auth-plugin, ...) does not work in it; use a token or client
# certificate kubeconfig. Files a kubeconfig names by path (client-certificate:, ...) must
# be mounted at those paths too; kubeconfigs with *-data fields need nothing more.

ARG GO_VERSION=1.26

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG VERSION=v0.0.0-dev
ARG COMMIT=unknown
ARG BUILD_DATE=unknown
ARG TARGETOS=linux
ARG TARGETARCH
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} go build -trimpath \
      -ldflags "-s -w -X main.version=${VERSION} -X main.gitCommit=${COMMIT} -X main.buildDate=${BUILD_DATE}" \
      -o /out/mvpctl ./cmd/mvpctl

FROM gcr.io/distroless/static-debian12:nonroot
COPY LICENSE /LICENSE
COPY --from=build /out/mvpctl /mvpctl
USER 65532:65532
ENTRYPOINT ["/mvpctl"]
