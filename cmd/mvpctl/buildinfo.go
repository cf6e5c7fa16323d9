package main

import (
	"runtime/debug"

	"github.com/mvpctl/mvpctl/pkg/buildinfo"
)

// Defaults of the -ldflags -X variables in version.go: a value equal to its default was
// not set at link time.
const (
	defaultVersion   = buildinfo.DefaultVersion
	defaultGitCommit = buildinfo.DefaultGitCommit
	defaultBuildDate = buildinfo.DefaultBuildDate
)

// buildVersion is mvpctl's version, commit and build date: the -ldflags -X values
// (`make build`, `make release`, GoReleaser) where they are set, otherwise what the Go
// toolchain recorded in the binary (`go install github.com/mvpctl/mvpctl/cmd/mvpctl@v0.3.0`,
// `go install ./cmd/mvpctl`), otherwise the defaults.
func buildVersion() (ver, commit, date string) {
	bi, _ := debug.ReadBuildInfo() // nil when the binary carries no build info
	return buildinfo.Resolve(version, gitCommit, buildDate, bi)
}
