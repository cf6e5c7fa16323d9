package buildinfo

import (
	"regexp"
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
	defaults := [3]string{DefaultVersion, DefaultGitCommit, DefaultBuildDate}

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
			want: [3]string{"v0.3.0", DefaultGitCommit, DefaultBuildDate},
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
			want: [3]string{"v0.4.0-rc.1", DefaultGitCommit, DefaultBuildDate},
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
			want: [3]string{DefaultVersion, "d6528451c0ff", revTime},
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
			want: [3]string{DefaultVersion, "d652845", DefaultBuildDate},
		},
		{
			name: "only the version set at link time: commit and date from build info",
			ld:   [3]string{"v0.3.0", DefaultGitCommit, DefaultBuildDate},
			bi:   info("(devel)", vcs("vcs.revision", rev, "vcs.time", revTime)),
			want: [3]string{"v0.3.0", "d6528451c0ff", revTime},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, c, d := Resolve(tt.ld[0], tt.ld[1], tt.ld[2], tt.bi)
			if got := [3]string{v, c, d}; got != tt.want {
				t.Errorf("Resolve = %q, want %q", got, tt.want)
			}
		})
	}
}

// pseudoVersionRE is what pseudoVersionTail reads by hand.
var pseudoVersionRE = regexp.MustCompile(`[-.]((\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2}))-([0-9a-f]{12})(\+[0-9A-Za-z.-]+)?$`)

// pseudoVersionTailRE is pseudoVersionTail by the regular expression.
func pseudoVersionTailRE(v string) (commit, date string, ok bool) {
	m := pseudoVersionRE.FindStringSubmatch(v)
	if m == nil {
		return "", "", false
	}
	return m[8], m[2] + "-" + m[3] + "-" + m[4] + "T" + m[5] + ":" + m[6] + ":" + m[7] + "Z", true
}

var pseudoVersionCases = []struct {
	v            string
	commit, date string // empty: not a pseudo-version
}{
	{"v0.0.0-20261120101112-d6528451c0ff", "d6528451c0ff", "2026-11-20T10:11:12Z"},
	{"v0.3.1-0.20261120101112-d6528451c0ff", "d6528451c0ff", "2026-11-20T10:11:12Z"},
	{"v0.4.0-rc.1.0.20261120101112-d6528451c0ff", "d6528451c0ff", "2026-11-20T10:11:12Z"},
	{"v0.0.0-20261120101112-d6528451c0ff+dirty", "d6528451c0ff", "2026-11-20T10:11:12Z"},
	{"v2.0.0-20261120101112-d6528451c0ff+incompatible", "d6528451c0ff", "2026-11-20T10:11:12Z"},
	// The leftmost match: a suffix that itself ends like a pseudo-version.
	{"v0.0.0-20261120101112-d6528451c0ff+x.20250101000000-aaaaaaaaaaaa", "d6528451c0ff", "2026-11-20T10:11:12Z"},
	// A suffix with a byte outside its class: only the end of the string can match.
	{"v0.0.0-20261120101112-d6528451c0ff+x_y-20250101000000-aaaaaaaaaaaa", "aaaaaaaaaaaa", "2025-01-01T00:00:00Z"},
	{"-20261120101112-d6528451c0ff", "d6528451c0ff", "2026-11-20T10:11:12Z"},
	{"v0.3.0", "", ""},
	{"v0.3.0-rc.1", "", ""},
	{"(devel)", "", ""},
	{"", "", ""},
	{"v0.0.0-20261120101112-D6528451C0FF", "", ""},  // upper-case hex
	{"v0.0.0-2026112010111-d6528451c0ff", "", ""},   // 13 digits
	{"v0.0.0_20261120101112-d6528451c0ff", "", ""},  // neither '-' nor '.' before the time
	{"v0.0.0-20261120101112-d6528451c0ff+", "", ""}, // an empty suffix
	{"v0.0.0-20261120101112-d6528451c0ff+a+b", "", ""},
	{"v0.0.0-20261120101112-d6528451c0ffe", "", ""}, // 13 hex digits
	{"v0.0.0-٢٠٢٦١١٢٠١٠١١١٢-d6528451c0ff", "", ""},  // \d is ASCII only
}

func TestPseudoVersionTail(t *testing.T) {
	for _, tc := range pseudoVersionCases {
		commit, date, ok := pseudoVersionTail(tc.v)
		if ok != (tc.commit != "") || commit != tc.commit || date != tc.date {
			t.Errorf("pseudoVersionTail(%q) = %q, %q, %v; want %q, %q", tc.v, commit, date, ok, tc.commit, tc.date)
		}
		if c, d, ok := pseudoVersionTailRE(tc.v); ok != (tc.commit != "") || c != tc.commit || d != tc.date {
			t.Errorf("the regular expression reads %q as %q, %q, %v; want %q, %q", tc.v, c, d, ok, tc.commit, tc.date)
		}
	}
}

// FuzzPseudoVersionTail: pseudoVersionTail reads every string as the regular expression does.
func FuzzPseudoVersionTail(f *testing.F) {
	for _, tc := range pseudoVersionCases {
		f.Add(tc.v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		c1, d1, ok1 := pseudoVersionTail(v)
		c2, d2, ok2 := pseudoVersionTailRE(v)
		if c1 != c2 || d1 != d2 || ok1 != ok2 {
			t.Errorf("pseudoVersionTail(%q) = %q, %q, %v; the regular expression reads %q, %q, %v", v, c1, d1, ok1, c2, d2, ok2)
		}
	})
}
