package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Defaults of the -ldflags -X variables of package main: a value equal to its default was
// not set at link time.
const (
	DefaultVersion   = "v0.0.0-dev"
	DefaultGitCommit = "unknown"
	DefaultBuildDate = "unknown"
)

// pseudoVersionTail reads the tail of a Go pseudo-version (vX.0.0-yyyymmddhhmmss-abcdefabcdef,
// vX.Y.Z-pre.0.yyyymmddhhmmss-abcdefabcdef, vX.Y.(Z+1)-0.yyyymmddhhmmss-abcdefabcdef),
// optionally followed by +incompatible or +dirty: the commit's 12 hex digits and its time,
// RFC 3339. It reads what the regular expression
//
//	[-.]((\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2}))-([0-9a-f]{12})(\+[0-9A-Za-z.-]+)?$
//
// matches (TestPseudoVersionTail and FuzzPseudoVersionTail compare the two); by hand because
// compiling the expression took about 1% of a run of `mvpctl version` (docs/performance.md).
func pseudoVersionTail(v string) (commit, date string, ok bool) {
	// The leftmost match wins: one followed by a "+suffix" starts before one ending the string.
	// A suffix cannot hold '+', so it starts after the last one.
	if i := strings.LastIndexByte(v, '+'); i >= 0 && i+1 < len(v) && allIn(v[i+1:], isSuffixByte) {
		if commit, date, ok = pseudoVersionCore(v[:i]); ok {
			return commit, date, true
		}
	}
	return pseudoVersionCore(v)
}

// pseudoVersionCore reads "[-.]yyyymmddhhmmss-abcdefabcdef" at the end of v.
func pseudoVersionCore(v string) (commit, date string, ok bool) {
	const n = len(".yyyymmddhhmmss-abcdefabcdef")
	if len(v) < n {
		return "", "", false
	}
	t := v[len(v)-n:]
	if (t[0] != '-' && t[0] != '.') || t[15] != '-' || !allIn(t[1:15], isDigit) || !allIn(t[16:], isLowerHex) {
		return "", "", false
	}
	ts := t[1:15]
	return t[16:], ts[0:4] + "-" + ts[4:6] + "-" + ts[6:8] + "T" + ts[8:10] + ":" + ts[10:12] + ":" + ts[12:14] + "Z", true
}

func allIn(s string, in func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !in(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool    { return '0' <= c && c <= '9' }
func isLowerHex(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' }
func isSuffixByte(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '.' || c == '-'
}

// Resolve combines the link-time values with bi (nil: no build info), field
// by field: a link-time value that differs from its default wins.
//
//   - version: bi.Main.Version, e.g. "v0.3.0" or a pseudo-version; "(devel)" or empty
//     (a build of a checkout without VCS stamping) leaves the default.
//   - commit: the vcs.revision setting (first 12 hex digits, "-dirty" appended when
//     vcs.modified is true), else the commit a pseudo-version names. `go install
//     module@version` records no vcs.* settings, and -buildvcs=false (GOFLAGS) drops them.
//   - date: the vcs.time setting (the commit time, RFC 3339), else the time a
//     pseudo-version names. Go records no build time.
func Resolve(ldVersion, ldCommit, ldDate string, bi *debug.BuildInfo) (ver, commit, date string) {
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
	pseudoCommit, pseudoTime, _ := pseudoVersionTail(mainVersion)

	if ver == DefaultVersion && mainVersion != "" {
		ver = mainVersion
	}
	if commit == DefaultGitCommit {
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
	if date == DefaultBuildDate {
		switch {
		case vcsTime != "":
			date = vcsTime
		case pseudoTime != "":
			date = pseudoTime
		}
	}
	return
}
