package main

import (
	"regexp"
	"runtime/debug"
	"sync"
)

// Defaults of the -ldflags -X variables in version.go: a value equal to its default was
// not set at link time.
const (
	defaultVersion   = "v0.0.0-dev"
	defaultGitCommit = "unknown"
	defaultBuildDate = "unknown"
)

// buildVersion is mvpctl's version, commit and build date: the -ldflags -X values
// (`make build`, `make release`, GoReleaser) where they are set, otherwise what the Go
// toolchain recorded in the binary (`go install github.com/mvpctl/mvpctl/cmd/mvpctl@v0.3.0`,
// `go install ./cmd/mvpctl`), otherwise the defaults.
func buildVersion() (ver, commit, date string) {
	bi, _ := debug.ReadBuildInfo() // nil when the binary carries no build info
	return resolveBuildVersion(version, gitCommit, buildDate, bi)
}

// pseudoVersionRE matches the tail of a Go pseudo-version
// (vX.0.0-yyyymmddhhmmss-abcdefabcdef, vX.Y.Z-pre.0.yyyymmddhhmmss-abcdefabcdef,
// vX.Y.(Z+1)-0.yyyymmddhhmmss-abcdefabcdef), optionally followed by +incompatible or +dirty.
var pseudoVersionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[-.]((\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2}))-([0-9a-f]{12})(\+[0-9A-Za-z.-]+)?$`)
})

// resolveBuildVersion combines the link-time values with bi (nil: no build info), field
// by field: a link-time value that differs from its default wins.
//
//   - version: bi.Main.Version, e.g. "v0.3.0" or a pseudo-version; "(devel)" or empty
//     (a build of a checkout without VCS stamping) leaves the default.
//   - commit: the vcs.revision setting (first 12 hex digits, "-dirty" appended when
//     vcs.modified is true), else the commit a pseudo-version names. `go install
//     module@version` records no vcs.* settings, and -buildvcs=false (GOFLAGS) drops them.
//   - date: the vcs.time setting (the commit time, RFC 3339), else the time a
//     pseudo-version names. Go records no build time.
func resolveBuildVersion(ldVersion, ldCommit, ldDate string, bi *debug.BuildInfo) (ver, commit, date string) {
	ver, commit, date = ldVersion, ldCommit, ldDate
	if bi == nil {
		return
	}
	var mainVersion string
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		mainVersion = v
	}
	var revision, vcsTime string
	var modified bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.time":
			vcsTime = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	var pseudoCommit, pseudoTime string
	if m := pseudoVersionRE().FindStringSubmatch(mainVersion); m != nil {
		pseudoCommit = m[8]
		pseudoTime = m[2] + "-" + m[3] + "-" + m[4] + "T" + m[5] + ":" + m[6] + ":" + m[7] + "Z"
	}

	if ver == defaultVersion && mainVersion != "" {
		ver = mainVersion
	}
	if commit == defaultGitCommit {
		switch {
		case revision != "":
			if len(revision) > 12 {
				revision = revision[:12]
			}
			commit = revision
			if modified {
				commit += "-dirty"
			}
		case pseudoCommit != "":
			commit = pseudoCommit
		}
	}
	if date == defaultBuildDate {
		switch {
		case vcsTime != "":
			date = vcsTime
		case pseudoTime != "":
			date = pseudoTime
		}
	}
	return
}
