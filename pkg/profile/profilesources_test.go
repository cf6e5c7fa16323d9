package profile

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// useProfiles calls Use and puts the embedded profiles back when the test ends.
func useProfiles(t *testing.T, src Sources) ([]string, error) {
	t.Helper()
	t.Cleanup(func() {
		activeMu.Lock()
		active = nil
		activeMu.Unlock()
	})
	return Use(src)
}

// writeProfile writes a test profile file (fixture_test.go's format) into dir.
func writeProfile(t *testing.T, dir, name, version string, gvrs ...string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, profileFile(version, gvrs...).Data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Which profile serves each minor, and from where: explicit file > directory > embedded.
func TestUseProfilesPrecedence(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	dir138 := writeProfile(t, dir, "v1.38.0.json", "v1.38.0", "v1/pods", "apps/v1/deployments")
	dir137 := writeProfile(t, dir, "mine-1.37.json", "v1.37.4", "v1/pods")
	writeProfile(t, dir, "ignored.yaml", "v1.39.0", "v1/pods") // the directory's *.json only
	file138 := writeProfile(t, other, "v1.38.1.yaml", "v1.38.1", "v1/pods", "apps/v1/deployments", "batch/v1/jobs")
	tests := []struct {
		name  string
		src   Sources
		want  map[string]string // Lookup argument → "version from"
		notes []string
	}{
		{"embedded alone", Sources{},
			map[string]string{"1.37": "v1.37.1 embedded", "1.34": "v1.34.4 embedded"}, nil},
		{"directory missing", Sources{Dir: filepath.Join(dir, "none")},
			map[string]string{"1.37": "v1.37.1 embedded"}, nil},
		{"directory", Sources{Dir: dir},
			map[string]string{"1.38": "v1.38.0 " + dir138, "1.37": "v1.37.4 " + dir137, "1.37.1": "v1.37.4 " + dir137, "1.36": "v1.36.3 embedded"},
			[]string{"profiles of 1.37: using v1.37.4 from " + dir137 + " (profile directory), not the embedded v1.37.1"}},
		{"file over directory", Sources{Dir: dir, Files: []string{file138}},
			map[string]string{"1.38": "v1.38.1 " + file138, "1.37": "v1.37.4 " + dir137},
			[]string{"profiles of 1.37: using v1.37.4 from " + dir137 + " (profile directory), not the embedded v1.37.1",
				"profiles of 1.38: using v1.38.1 from " + file138 + " (--profile), not v1.38.0 from " + dir138 + " (profile directory)"}},
		{"the directory's file named again", Sources{Dir: dir, Files: []string{dir138}},
			map[string]string{"1.38": "v1.38.0 " + dir138},
			[]string{"profiles of 1.37: using v1.37.4 from " + dir137 + " (profile directory), not the embedded v1.37.1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			notes, err := useProfiles(t, tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(notes, "\n") != strings.Join(tt.notes, "\n") {
				t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(tt.notes, "\n"))
			}
			for in, want := range tt.want {
				p, err := Lookup(in)
				if err != nil {
					t.Fatalf("Lookup(%s): %v", in, err)
				}
				if got := p.Version.String() + " " + p.From; got != want {
					t.Errorf("Lookup(%s) = %s, want %s", in, got, want)
				}
			}
			ps, _ := All()
			for i := 1; i < len(ps); i++ {
				if !ps[i-1].Version.Less(ps[i].Version) {
					t.Errorf("All not sorted: %s before %s", ps[i-1].Version, ps[i].Version)
				}
			}
		})
	}
}

// A bad profile file is one line naming the file and what is wrong; the embedded profiles
// alone are then in use.
func TestUseProfilesErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeProfile(t, dir, "good.json", "v1.38.0", "v1/pods")
	twin := writeProfile(t, dir, "twin.yaml", "v1.38.0", "v1/pods")
	tests := []struct {
		name string
		file string
		want string
	}{
		{"missing", filepath.Join(dir, "nope.json"), "profile " + filepath.Join(dir, "nope.json") + ": no such file or directory"},
		{"empty", writeFile(t, dir, "empty.json", ""), "profile " + filepath.Join(dir, "empty.json") + ": file is empty"},
		{"not JSON or YAML", writeFile(t, dir, "page.json", "<html></html>"), "not a YAML or JSON document"},
		{"another kind", writeFile(t, dir, "scenario.yaml", "apiVersion: mvpctl.io/v1alpha1\nkind: Scenario\n"), `kind: got "Scenario", want "Snapshot"`},
		{"unknown field", writeFile(t, dir, "typo.yaml", strings.Replace(string(profileFile("v1.38.0", "v1/pods").Data), "reachable:", "reachble:", 1)), "reachble"},
		{"a cluster snapshot", writeFile(t, dir, "cluster.yaml", strings.Replace(string(profileFile("v1.38.0", "v1/pods").Data), "name: default", "name: kas-a", 1)+
			"- name: kas-b\n  version: v1.38.0\n  reachable: true\n"), `no server "default" among 2 servers (kas-a, kas-b): not a version profile; ` + "`mvpctl profiles record` writes one"},
		{"a CRD", writeFile(t, dir, "crd.yaml", strings.Replace(string(profileFile("v1.38.0", "v1/pods").Data), "source: builtin", "source: crd", 1)), `server "default": v1/pods has source "crd": a profile holds only what the binary serves`},
		{"two versions", writeFile(t, dir, "mixed.yaml", strings.Replace(string(withFull(profileFile("v1.38.0", "v1/pods"), "v1/pods").Data), "version: v1.38.0", "version: v1.37.0", 1)), `server "api-all" is v1.38.0, server "default" v1.37.0: a profile is one version`},
		{"twice the same version", twin, "profile " + twin + ": v1.38.0 is also in " + good + " (--profile): keep one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := []string{tt.file}
			if tt.file == twin {
				files = []string{good, twin}
			}
			_, err := useProfiles(t, Sources{Files: files})
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error = %v, want one line containing %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.file) && tt.name != "twice the same version" {
				t.Errorf("error does not name the file: %v", err)
			}
			if _, err := Lookup("1.37"); err != nil {
				t.Errorf("after a bad file the embedded profiles are in use: %v", err)
			}
		})
	}
}

// A version without a profile says how to get one: record it into the profile directory.
func TestLookupProfileHint(t *testing.T) {
	if _, err := useProfiles(t, Sources{Dir: "/home/u/.config/mvpctl/profiles", DirShown: "~/.config/mvpctl/profiles"}); err != nil {
		t.Fatal(err)
	}
	_, err := Lookup("1.38")
	want := "no profile for Kubernetes 1.38: mvpctl has profiles for v1.34.4, v1.35.4, v1.36.3, v1.37.1; record one from a running 1.38 kube-apiserver: " +
		"`mvpctl profiles record --context CONTEXT -f ~/.config/mvpctl/profiles/v1.38.0.json`, or give a profile file with --profile FILE"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// mvp.PrereleaseAPIVersion's claim, which `profiles record` warns by: no default server of the
// embedded profiles (real apiservers) serves an alpha or beta API; every api-all server does.
func TestEmbeddedDefaultsServeNoPrerelease(t *testing.T) {
	files, err := fs.Glob(embeddedProfiles, "profiles/*.json")
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
	}
	for _, f := range files {
		data, err := fs.ReadFile(embeddedProfiles, f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		prerelease := func(rs []snapshot.Resource) int {
			n := 0
			for _, r := range rs {
				if mvp.PrereleaseAPIVersion(r.Version) {
					n++
				}
			}
			return n
		}
		if n := prerelease(p.Resources); n != 0 {
			t.Errorf("%s: the default server serves %d alpha or beta resources", f, n)
		}
		if n := prerelease(p.Full); n == 0 {
			t.Errorf("%s: the api-all server serves no alpha or beta resource: the check would prove nothing", f)
		}
	}
}

// A profile directory that cannot be listed (here a file) is one line naming it; one that does
// not exist holds no profile.
func TestProfileDirErrors(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "profiles", "")
	_, err := useProfiles(t, Sources{Dir: file})
	if want := "profile directory " + file + ": not a directory"; err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	if _, err := useProfiles(t, Sources{Dir: filepath.Join(dir, "nope")}); err != nil {
		t.Errorf("a missing directory: %v", err)
	}
}

// A profile whose emulated version its binary cannot emulate is refused, naming the range;
// one within it is read.
func TestProfileRefused(t *testing.T) {
	emulating := func(emulated string) string {
		return strings.Replace(string(profileFile("v1.36.3", "v1/pods").Data), "  version: v1.36.3\n", "  version: v1.36.3\n  emulatedVersion: \""+emulated+"\"\n", 1)
	}
	for _, tt := range []struct {
		name, emulated, want string
	}{
		{"8 minors behind", "1.28", `server "default": emulated version 1.28 is not between 1.33 and 1.36: a kube-apiserver v1.36.3 cannot emulate it`},
		{"ahead of the binary", "1.37", `server "default": emulated version 1.37 is not between 1.33 and 1.36: a kube-apiserver v1.36.3 cannot emulate it`},
		{"3 minors behind", "1.33", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeFile(t, dir, "v1.36.3.json", emulating(tt.emulated))
			_, err := useProfiles(t, Sources{Dir: dir})
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || err.Error() != "profile "+path+": "+tt.want) {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
}
