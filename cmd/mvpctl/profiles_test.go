package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/profile"
)

// writeProfile139 writes the embedded v1.37.2 profile with its version rewritten to v1.39.0 (a
// version mvpctl does not embed) to dir/v1.39.0.json and returns that path.
func writeProfile139(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile("../../pkg/profile/profiles/v1.37.2.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["source"], _ = json.Marshal("test fixture: the v1.37.2 profile with its version rewritten to v1.39.0")
	data, err = json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.NewReplacer(`"v1.37.2"`, `"v1.39.0"`, `"emulatedVersion":"1.37"`, `"emulatedVersion":"1.39"`).Replace(string(data)))
	path := filepath.Join(dir, "v1.39.0.json")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The how-to of a version without a profile, with the tests' profile directory (main_test.go).
const noProfile139 = "error: no profile for Kubernetes 1.39: mvpctl has profiles for v1.33.13, v1.34.4, v1.35.4, v1.36.3, v1.37.2, v1.38.0; " +
	"record one from a running 1.39 kube-apiserver: `mvpctl profiles record --context CONTEXT -f " + noProfileDir + "/mvpctl/profiles/v1.39.0.json`, " +
	"or give a profile file with --profile FILE\n"

// Profiles from --profile: printed output in golden files, errors as the exact line.
func TestProfileFlag(t *testing.T) {
	resetProfiles(t)
	dir := t.TempDir()
	clash := filepath.Join(dir, "mine.json")
	copyFile(t, "../../pkg/profile/profiles/v1.37.2.json", clash)
	skew, requests, goldenDir := absPath(t, skew), absPath(t, "testdata/requests.txt"), absPath(t, "testdata/golden")
	// A relative name, so that the FROM column is the same in every run.
	v139 := writeProfile139(t, t.TempDir())
	t.Chdir(filepath.Dir(v139))
	v139 = filepath.Base(v139)
	tests := []struct {
		name   string
		args   []string
		code   int
		golden string // stdout
		stderr string
	}{
		{"list", []string{"profiles", "list", "--profile", v139}, ExitOK, "profiles-list-profile.txt", ""},
		{"list json", []string{"profiles", "list", "--profile", v139, "-o", "json"}, ExitOK, "profiles-list-profile.json", ""},
		{"show", []string{"profiles", "show", "1.39", "--profile", v139, "--no-headers"}, ExitOK, "profiles-show-1.39-no-headers.txt",
			"Profile v1.39.0 (taken 2026-11-23; test fixture: the v1.37.2 profile with its version rewritten to v1.39.0; from " + v139 + ")\n"},
		{"a same-version clash says which is used", []string{"profiles", "list", "--profile", clash, "--no-headers"}, ExitOK, "",
			"warning: profiles of 1.37: using v1.37.2 from " + clash + " (--profile), not the embedded v1.37.2\n"},
		{"upgrade without the profile", []string{"simulate", "upgrade", "--servers", "a=1.38,b=1.38", "--to", "1.39"}, ExitError, "", noProfile139},
		{"preflight without the profile", []string{"preflight", "--servers", "a=1.38,b=1.38", "--to", "1.39"}, ExitError, "", noProfile139},
		{"show without the profile", []string{"profiles", "show", "v1.39.0"}, ExitError, "",
			strings.Replace(noProfile139, "Kubernetes 1.39:", "Kubernetes v1.39.0:", 1)},
		{"a snapshot is not a profile", []string{"simulate", "upgrade", "--servers", "a=1.38", "--to", "1.39", "--profile", skew}, ExitError, "",
			"error: profile " + skew + `: no server "default" among 3 servers (kas-a, kas-b, kas-c): not a version profile; ` + "`mvpctl profiles record` writes one\n"},
		{"a missing file", []string{"profiles", "list", "--profile", "testdata/profiles/nope.json"}, ExitError, "",
			"error: profile testdata/profiles/nope.json: no such file or directory\n"},
		{"not JSON", []string{"preflight", "--servers", "a=1.38", "--to", "1.39", "--profile", requests}, ExitError, "",
			"error: profile " + requests + ": not a snapshot: the document is not a YAML or JSON object\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.code, errOut)
			}
			if errOut != tt.stderr {
				t.Errorf("stderr:\n%q\nwant:\n%q", errOut, tt.stderr)
			}
			switch {
			case tt.golden != "":
				goldenFile(t, filepath.Join(goldenDir, tt.golden), out)
			case code == ExitOK: // the clash: the file's path is a temporary directory's
				if !regexp.MustCompile(`(?m)^v1\.37\.2 +72 +2026-11-23 +` + regexp.QuoteMeta(clash) + ` `).MatchString(out) {
					t.Errorf("the v1.37.2 line should name %s:\n%s", clash, out)
				}
			case out != "":
				t.Errorf("stdout should be empty on error, got %q", out)
			}
		})
	}
}

// explain loads the profiles too (what a server's version can serve at some --runtime-config).
func TestExplainLoadsProfiles(t *testing.T) {
	resetProfiles(t)
	clash := filepath.Join(t.TempDir(), "mine.json")
	copyFile(t, "../../pkg/profile/profiles/v1.36.3.json", clash)
	out, errOut, code := run(t, "explain", "--snapshot", skew, "--profile", clash, "GET", "/api/v1/pods")
	if code != ExitIncomplete || out == "" || !strings.HasPrefix(errOut, "warning: profiles of 1.36: using v1.36.3 from "+clash+" (--profile), not the embedded v1.36.3\n") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = run(t, "explain", "--snapshot", skew, "--profile", skew, "GET", "/api/v1/pods")
	if code != ExitError || !strings.HasPrefix(errOut, "error: profile "+skew+`: no server "default"`) {
		t.Errorf("a bad --profile: exit %d, stderr %q", code, errOut)
	}
}

// A version newer than every embedded one, from --profile or the profile directory: simulate
// upgrade and preflight run with it.
func TestUpgradeToRecordedVersion(t *testing.T) {
	resetProfiles(t)
	xdg := t.TempDir()
	v139 := writeProfile139(t, filepath.Join(xdg, "mvpctl", "profiles"))
	for _, fromDir := range []bool{false, true} {
		for _, cmd := range [][]string{{"simulate", "upgrade"}, {"preflight"}} {
			args := append(cmd, "--servers", "a=1.38,b=1.38", "--to", "1.39", "-o", "json")
			if fromDir {
				t.Setenv("XDG_CONFIG_HOME", xdg)
			} else {
				args = append(args, "--profile", v139)
			}
			out, errOut, code := run(t, args...)
			if code == ExitError || !strings.Contains(out, `"v1.39.0"`) || !strings.Contains(out, `"v1.38.0"`) {
				t.Errorf("%v (profile directory %t): exit %d, stderr %q; want a result naming both profiles", args, fromDir, code, errOut)
			}
		}
	}
	out, _, code := run(t, "profiles", "list", "--no-headers")
	if code != ExitOK || !strings.Contains(out, filepath.Join(xdg, "mvpctl", "profiles", "v1.39.0.json")) {
		t.Errorf("profiles list does not show the profile directory's file:\n%s", out)
	}
}

// The completion of --to offers the profiles the command would load.
func TestCompletionWithProfile(t *testing.T) {
	resetProfiles(t)
	v139 := writeProfile139(t, t.TempDir())
	out, _, code := run(t, "__complete", "simulate", "upgrade", "--profile", v139, "--to", "1.3")
	if code != ExitOK || !strings.Contains(out, "1.39.0\tKubernetes 1.39 profile, 72 resources\n") || !strings.Contains(out, "1.38.0\t") {
		t.Errorf("completion:\n%s", out)
	}
}

// resetProfiles puts the embedded profiles alone back in use when the test ends: the profiles a
// command loads stay in use in the process (one command per process outside tests), and other
// tests read profiles without loading any.
func resetProfiles(t *testing.T) {
	t.Cleanup(func() {
		if _, err := profile.Use(profile.Sources{}); err != nil {
			t.Error(err)
		}
	})
}

func absPath(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
