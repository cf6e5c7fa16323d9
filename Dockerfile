# syntax=docker/dockerfile:1
# mvpctl for CI jobs: a static binary on distroless, running as non-root (65532).
#
#   docker build -t mvpctl \
#     --build-arg VERSION=$(git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null || echo v0.0.0-dev) \
#     --build-arg COMMIT=$(git rev-parse --short HEAD) \
#     --build-arg BUILD_DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ) .
#   docker run --rm -v ~/.kube:/home/nonroot/.kube:ro mvpctl routes
#
# The image has no shell and no credential plugins: a kubeconfig that needs an exec
# plugin (aws, gke-gcloud-auth-plugin, ...) does not work in it; use a token or client
# certificate kubeconfig.

ARG GO_VERSION=1.26

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG VERSION=v0.0.0-dev
ARG COMMIT=unknown
ARG BUILD_DATE=unknown
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X main.version=${VERSION} -X main.gitCommit=${COMMIT} -X main.buildDate=${BUILD_DATE}" \
      -o /out/mvpctl ./cmd/mvpctl

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/mvpctl /mvpctl
USER 65532:65532
ENTRYPOINT ["/mvpctl"]
