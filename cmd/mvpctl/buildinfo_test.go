package main

import (
	"runtime/debug"
	"testing"
)

func TestResolveBuildVersion(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	info := func(mainVersion string, settings []debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{
			Path:     "github.com/mvpctl/mvpctl/cmd/mvpctl",
			Main:     debug.Module{Path: "github.com/mvpctl/mvpctl", Version: mainVersion},
			Settings: settings,
		}
	}
	const rev = "d6528451c0ffee00d6528451c0ffee00d6528451"
	const revTime = "2026-11-20T10:11:12Z"
	defaults := [3]string{defaultVersion, defaultGitCommit, defaultBuildDate}

	tests := []struct {
		name string
		ld   [3]string // -ldflags -X values: version, gitCommit, buildDate
		bi   *debug.BuildInfo
		want [3]string
	}{
		{
			name: "no build info, no ldflags",
			ld:   defaults,
			want: defaults,
		},
		{
			name: "ldflags win over build info (make build, GoReleaser)",
			ld:   [3]string{"v0.3.0", "abc1234", "2026-11-21T00:00:00Z"},
			bi:   info("v0.2.0", vcs("vcs.revision", rev, "vcs.time", revTime)),
			want: [3]string{"v0.3.0", "abc1234", "2026-11-21T00:00:00Z"},
		},
		{
			name: "go install module@tag: no vcs settings",
			ld:   defaults,
			bi:   info("v0.3.0", nil),
			want: [3]string{"v0.3.0", defaultGitCommit, defaultBuildDate},
		},
		{
			name: "go install module@commit: pseudo-version names commit and time",
			ld:   defaults,
			bi:   info("v0.0.0-20261120101112-d6528451c0ff", nil),
			want: [3]string{"v0.0.0-20261120101112-d6528451c0ff", "d6528451c0ff", "2026-11-20T10:11:12Z"},
		},
		{
			name: "pseudo-version after a tag",
			ld:   defaults,
			bi:   info("v0.3.1-0.20261120101112-d6528451c0ff", nil),
			want: [3]string{"v0.3.1-0.20261120101112-d6528451c0ff", "d6528451c0ff", "2026-11-20T10:11:12Z"},
		},
		{
			name: "pseudo-version after a pre-release tag",
			ld:   defaults,
			bi:   info("v0.4.0-rc.1.0.20261120101112-d6528451c0ff", nil),
			want: [3]string{"v0.4.0-rc.1.0.20261120101112-d6528451c0ff", "d6528451c0ff", "2026-11-20T10:11:12Z"},
		},
		{
			name: "pre-release tag is not a pseudo-version",
			ld:   defaults,
			bi:   info("v0.4.0-rc.1", nil),
			want: [3]string{"v0.4.0-rc.1", defaultGitCommit, defaultBuildDate},
		},
		{
			name: "go install ./cmd/mvpctl in a clean checkout (Go 1.24+ stamps the version)",
			ld:   defaults,
			bi:   info("v0.3.1-0.20261120101112-d6528451c0ff", vcs("vcs", "git", "vcs.revision", rev, "vcs.time", revTime, "vcs.modified", "false")),
			want: [3]string{"v0.3.1-0.20261120101112-d6528451c0ff", "d6528451c0ff", revTime},
		},
		{
			name: "go install ./cmd/mvpctl in a modified checkout",
			ld:   defaults,
			bi:   info("v0.3.1-0.20261120101112-d6528451c0ff+dirty", vcs("vcs", "git", "vcs.revision", rev, "vcs.time", revTime, "vcs.modified", "true")),
			want: [3]string{"v0.3.1-0.20261120101112-d6528451c0ff+dirty", "d6528451c0ff-dirty", revTime},
		},
		{
			name: "(devel) with vcs settings: version stays the default",
			ld:   defaults,
			bi:   info("(devel)", vcs("vcs.revision", rev, "vcs.time", revTime, "vcs.modified", "false")),
			want: [3]string{defaultVersion, "d6528451c0ff", revTime},
		},
		{
			name: "(devel) with -buildvcs=false: nothing known",
			ld:   defaults,
			bi:   info("(devel)", vcs("-buildmode", "exe", "CGO_ENABLED", "0")),
			want: defaults,
		},
		{
			name: "empty main version",
			ld:   defaults,
			bi:   info("", nil),
			want: defaults,
		},
		{
			name: "short revision kept whole",
			ld:   defaults,
			bi:   info("(devel)", vcs("vcs.revision", "d652845")),
			want: [3]string{defaultVersion, "d652845", defaultBuildDate},
		},
		{
			name: "only the version set at link time: commit and date from build info",
			ld:   [3]string{"v0.3.0", defaultGitCommit, defaultBuildDate},
			bi:   info("(devel)", vcs("vcs.revision", rev, "vcs.time", revTime)),
			want: [3]string{"v0.3.0", "d6528451c0ff", revTime},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, c, d := resolveBuildVersion(tt.ld[0], tt.ld[1], tt.ld[2], tt.bi)
			if got := [3]string{v, c, d}; got != tt.want {
				t.Errorf("resolveBuildVersion = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestBuildVersionTestBinary: a test binary carries build info; whatever it says,
// buildVersion must return non-empty values.
func TestBuildVersionTestBinary(t *testing.T) {
	v, c, d := buildVersion()
	if v == "" || c == "" || d == "" {
		t.Fatalf("buildVersion() = %q, %q, %q; want no empty field", v, c, d)
	}
}
