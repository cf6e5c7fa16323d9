# mvpctl — build, test, lint. `make test` is the project's test command (README, .ci/run).
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
DATE    ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS := -X main.version=$(VERSION) -X main.gitCommit=$(COMMIT) -X main.buildDate=$(DATE)
E2E_TIMEOUT ?= 45m

.PHONY: all build test unit e2e lint bench golden clean profiles

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/mvpctl ./cmd/mvpctl

# Unit tests, then the end-to-end suite against real kube-apiservers (test/e2e).
test: unit e2e

unit:
	$(GO) test ./...

e2e: build
	cd test/e2e && MVPCTL_BIN=$(CURDIR)/bin/mvpctl $(GO) test -count=1 -v -timeout $(E2E_TIMEOUT) ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	cd test/e2e && $(GO) vet ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Rewrite the golden files of the printed output after an intended change.
golden:
	$(GO) test ./cmd/mvpctl/ -update

clean:
	rm -rf bin

# Record the version profiles simulations start from, from real kube-apiservers (needs root).
profiles:
	cd test/e2e && $(GO) run ./cmd/mkprofiles -out $(CURDIR)/pkg/simulate/profiles
