# mvpctl — build, test, lint, release. `make test` is the project's test command (README, .ci/run).
GO      ?= go
# A release tag (vX.Y.Z, with -N-gHASH after it and -dirty as git describe adds them), else v0.0.0-dev.
VERSION ?= $(shell git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null || echo v0.0.0-dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
# The build date is not the clock's, so that a rebuild of a commit gives the same bytes:
# SOURCE_DATE_EPOCH when set (reproducible-builds.org), else the commit's time (UTC, as the
# release archives' .CommitDate), else unknown.
DATE    ?= $(shell if [ -n "$$SOURCE_DATE_EPOCH" ]; then \
             date -u -d "@$$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u -r "$$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ; \
           else TZ=UTC0 git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd 2>/dev/null | grep . || echo unknown; fi)
LDFLAGS := -X main.version=$(VERSION) -X main.gitCommit=$(COMMIT) -X main.buildDate=$(DATE)
E2E_TIMEOUT ?= 45m

# `make release [GOOS=linux GOARCH=arm64]`: a static (no cgo), reproducible (-trimpath),
# stripped (-s -w) binary, as the release archives and the container image carry it.
GOOS    ?= $(shell $(GO) env GOOS)
GOARCH  ?= $(shell $(GO) env GOARCH)
EXE      = $(if $(filter windows,$(GOOS)),.exe,)
RELEASE_BIN = bin/release/mvpctl_$(GOOS)_$(GOARCH)$(EXE)

.PHONY: all build image image-docker release release-snapshot test unit e2e e2e-prebuild lint bench perf golden pictures clean profiles profiles-provisional profiles-provisional-check examples lifecycle

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/mvpctl ./cmd/mvpctl

release:
	CGO_ENABLED=0 GOOS=$(GOOS) GOARCH=$(GOARCH) $(GO) build -trimpath -ldflags "-s -w $(LDFLAGS)" -o $(RELEASE_BIN) ./cmd/mvpctl
	@echo $(RELEASE_BIN)

# The container image, built without a container daemon (tools/imagebuild, with
# go-containerregistry): the static `make release` binary for linux/$(GOARCH), the licence,
# /etc/passwd naming the non-root user 65532 it runs as and this machine's CA bundle when it
# has one, on no base image, stamped like `make build` and dated like it (SOURCE_DATE_EPOCH or
# the commit's time), so a rebuild of a commit gives the same bytes. It is written as
# $(IMAGE_TAR), a `docker save` tarball tagged with the name and tag that deploy/exporter's
# kustomization names (its `images:`; a test checks they agree): the tree's version reference,
# `main` until a release commit sets vX.Y.Z (docs/install.md#making-a-release). Load it into a
# cluster's nodes with `kind load image-archive $(IMAGE_TAR)`, `minikube image load
# $(IMAGE_TAR)` or `ctr -n k8s.io images import $(IMAGE_TAR)`; `docker load -i` takes it too.
# The release workflow pushes the same tarball, per platform, with crane.
# `make image-docker` is the Dockerfile's build (buildx), for a machine with a daemon.
IMAGE_REPO ?= ghcr.io/mvpctl/mvpctl
IMAGE_TAG  ?= main
IMAGE      ?= $(IMAGE_REPO):$(IMAGE_TAG)
IMAGE_TAR  ?= bin/mvpctl-image_linux_$(GOARCH).tar
CA_CERTS   ?= $(wildcard /etc/ssl/certs/ca-certificates.crt)
image:
	$(MAKE) release GOOS=linux GOARCH=$(GOARCH)
	$(GO) run ./tools/imagebuild/mkimage -binary bin/release/mvpctl_linux_$(GOARCH) -arch $(GOARCH) \
	  -ref $(IMAGE) -o $(IMAGE_TAR) -version $(VERSION) -revision $(COMMIT) -created $(DATE) -ca-certs "$(CA_CERTS)"

DOCKER_BUILD ?= docker build
image-docker:
	$(DOCKER_BUILD) -t $(IMAGE) --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) --build-arg BUILD_DATE=$(DATE) .
	@echo $(IMAGE)

# Every archive of a release (.goreleaser.yaml) into dist/, without publishing or signing
# anything (keyless signing needs the release workflow's identity); SBOMs when syft is on PATH.
release-snapshot:
	@command -v goreleaser >/dev/null || { echo "make release-snapshot: needs goreleaser on PATH (go install github.com/goreleaser/goreleaser/v2@latest)" >&2; exit 1; }
	@skip=sign; command -v syft >/dev/null || { skip=sign,sbom; echo "make release-snapshot: no syft on PATH: no SBOMs" >&2; }; \
	  echo "goreleaser release --snapshot --clean --skip=$$skip"; goreleaser release --snapshot --clean --skip=$$skip

# Unit tests, then the end-to-end suite against real kube-apiservers (test/e2e).
test: unit e2e

unit:
	$(GO) test ./...

# The kube-apiserver builds (minutes each when cold) run first, outside the tests' timeout,
# and print a line when each starts and ends. Then one `go test -v` per package list: with a
# single package, go test streams -v output as the tests run (several packages are buffered
# until each finishes), so the long-running root package gets an invocation of its own.
e2e: build e2e-prebuild
	cd test/e2e && $(GO) test -count=1 -v -timeout $(E2E_TIMEOUT) ./harness ./cmd/...
	cd test/e2e && MVPCTL_BIN=$(CURDIR)/bin/mvpctl $(GO) test -count=1 -v -timeout $(E2E_TIMEOUT) .

# Build etcd and every pinned kube-apiserver into the cache (`... -n` lists what it would build).
e2e-prebuild:
	cd test/e2e && $(GO) run ./cmd/e2e-prebuild

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	cd test/e2e && $(GO) vet ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Whole-process ratios (docs/performance.md): hyperfine against a hello-world, jq and wc -l.
perf:
	test/tools/perf.sh

# Rewrite the golden files of the printed output after an intended change.
golden:
	$(GO) test ./cmd/mvpctl/ ./pkg/simulate/ -update

# Re-record the shipped examples from real kube-apiservers (needs root): examples/skew.yaml (a
# snapshot with /apis documents) and examples/audit.log.gz. Then `make golden` (which also remakes
# examples/skew-counters.yaml and skew-prometheus.yaml from skew.yaml) and `make pictures`.
examples: build
	cd test/e2e && $(GO) run ./cmd/mkexample -mvpctl $(CURDIR)/bin/mvpctl -out $(CURDIR)/examples/skew.yaml -audit-out $(CURDIR)/examples/audit.log.gz

# Redraw the pictures of docs/usage.md (docs/images) from the DOT golden files. The only target that
# needs Graphviz (`make test` checks the DOT files in Go).
pictures:
	@command -v dot >/dev/null || { echo "make pictures: needs Graphviz's dot on PATH (apt-get install graphviz, brew install graphviz)" >&2; exit 1; }
	dot -Tpng -o docs/images/explain-example.png cmd/mvpctl/testdata/golden/explain-example.dot
	dot -Tpng -o docs/images/routes-example.png cmd/mvpctl/testdata/golden/routes-example.dot
	dot -Tpng -o docs/images/simulate-timeline.png cmd/mvpctl/testdata/golden/simulate-timeline-crash.dot

clean:
	rm -rf bin dist

# Re-derive pkg/lifecycle/lifecycle.json, the lifecycle of every built-in API type, from the
# generated lifecycle functions of the k8s.io/api versions the file lists (its "modules"),
# offline from the module cache; a module not in the cache is named with the `go mod download`
# that fetches it. LIFECYCLE_MODULES=v0.20.6,...,v0.37.2 derives from another list.
LIFECYCLE_MODULES ?=
lifecycle:
	$(GO) run ./tools/gen/lifecycle -out pkg/lifecycle/lifecycle.json $(if $(LIFECYCLE_MODULES),-modules $(LIFECYCLE_MODULES))

# Record the version profiles simulations start from, from real kube-apiservers (needs root).
# First, for a provisional profile read from a k8s.io/kubernetes prerelease, it checks that the
# module proxy serves every module that prerelease's kube-apiserver is built from; when one is
# missing it names them in one line and exits 1 before writing anything (docs/profiles.md).
profiles:
	cd test/e2e && $(GO) run ./cmd/mkprofiles -toolchain $(PROVISIONAL_TOOLCHAIN) -out $(CURDIR)/pkg/profile/profiles

# Derive the provisional profile of the next minor, before its kube-apiserver can be built,
# from the newest recorded profile and the minor's published k8s.io/api, k8s.io/apiserver and
# (once published) k8s.io/kubernetes prerelease (docs/profiles.md). Needs the network (the Go
# module proxy) and downloads the Go toolchain the modules need; writes
# pkg/profile/profiles/provisional/v1.N.json (the facts, committed) and
# pkg/profile/profiles/v1.N.0.json, twice, and checks that both runs wrote the same bytes.
# PROVISIONAL_MODULES=latest takes the newest prerelease `go list -m -versions` lists.
# `make test` checks the profile against the facts without network.
PROVISIONAL_MODULES   ?= latest
PROVISIONAL_TOOLCHAIN ?= go1.27.3
profiles-provisional:
	cd test/e2e && $(GO) run ./cmd/mkprofiles -provisional $(PROVISIONAL_MODULES) -toolchain $(PROVISIONAL_TOOLCHAIN) -out $(CURDIR)/pkg/profile/profiles
	@tmp=$$(mktemp -d) && cp -r pkg/profile/profiles/. $$tmp/ && \
	  (cd test/e2e && $(GO) run ./cmd/mkprofiles -provisional $(PROVISIONAL_MODULES) -toolchain $(PROVISIONAL_TOOLCHAIN) -out $(CURDIR)/pkg/profile/profiles) && \
	  diff -r $$tmp pkg/profile/profiles && echo "make profiles-provisional: two runs wrote the same bytes"; rc=$$?; rm -rf $$tmp; exit $$rc

# Check, with the network, that the committed facts and provisional profile are what the cited
# module files give today: extract and derive into a copy, and compare (nothing is written).
profiles-provisional-check:
	@tmp=$$(mktemp -d) && cp -r pkg/profile/profiles/. $$tmp/ && \
	  (cd test/e2e && $(GO) run ./cmd/mkprofiles -provisional committed -toolchain $(PROVISIONAL_TOOLCHAIN) -out $$tmp) && \
	  diff -r pkg/profile/profiles $$tmp && echo "make profiles-provisional-check: the committed facts and profile are what the module files give"; rc=$$?; rm -rf $$tmp; exit $$rc
