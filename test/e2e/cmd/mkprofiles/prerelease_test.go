package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/profilerecord"
)

func TestBuildModules(t *testing.T) {
	gomod := []byte(`module k8s.io/kubernetes

go 1.27.0

require (
	github.com/spf13/cobra v1.10.0
	k8s.io/api v0.0.0
	k8s.io/apiextensions-api v0.0.0 // new staging module
)

require sigs.k8s.io/structured-merge-diff/v7 v7.0.1 // indirect

replace (
	k8s.io/api => ./staging/src/k8s.io/api
	k8s.io/apiextensions-api => ./staging/src/k8s.io/apiextensions-api
)
`)
	got, err := buildModules(gomod, "v1.38.0-beta.0")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"github.com/spf13/cobra@v1.10.0", "k8s.io/api@v0.38.0-beta.0", "k8s.io/apiextensions-api@v0.38.0-beta.0", "sigs.k8s.io/structured-merge-diff/v7@v7.0.1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if _, err := buildModules([]byte("module x\n"), "v1.38.0-beta.0"); err == nil {
		t.Error("a go.mod that requires nothing: no error")
	}
}

func TestNewestPrerelease(t *testing.T) {
	listed := strings.Fields("v0.37.1 v0.37.2 v0.38.0-alpha.0 v0.38.0-alpha.2 v0.38.0-alpha.10 v0.38.0-beta.0 v0.39.0-alpha.0")
	for _, tc := range []struct {
		minor int
		want  string
	}{{38, "v0.38.0-beta.0"}, {39, "v0.39.0-alpha.0"}, {40, ""}} {
		got, err := newestPrerelease(listed, tc.minor)
		if got != tc.want || (err != nil) != (tc.want == "") {
			t.Errorf("1.%d: %q %v, want %q", tc.minor, got, err, tc.want)
		}
	}
	if got, _ := newestPrerelease(strings.Fields("v0.38.0-alpha.2 v0.38.0-alpha.10"), 38); got != "v0.38.0-alpha.10" {
		t.Errorf("alpha.10 after alpha.2: got %s", got)
	}
}

// fakeProxy serves a k8s.io/kubernetes prerelease whose go.mod requires two modules, one of
// which it does not serve.
func fakeProxy(t *testing.T, missing ...string) fetcher {
	dir := t.TempDir()
	gomod := "module k8s.io/kubernetes\n\nrequire (\n\tk8s.io/apiextensions-api v0.0.0\n\tsigs.k8s.io/yaml v1.6.0\n)\n\nreplace k8s.io/apiextensions-api => ./staging/src/k8s.io/apiextensions-api\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	gone := map[string]bool{}
	for _, m := range missing {
		gone[m] = true
	}
	return func(_ string, modules ...string) ([]profilerecord.Module, []string, error) {
		var got []profilerecord.Module
		var miss []string
		for _, m := range modules {
			if gone[m] {
				miss = append(miss, m)
				continue
			}
			path, version, _ := strings.Cut(m, "@")
			got = append(got, profilerecord.Module{Path: path, Version: version, Dir: dir})
		}
		return got, miss, nil
	}
}

// With a module of the prerelease unavailable, make profiles names it in one line and stops
// before recording: the profiles directory is left as it was. With every module served, or
// with the release itself being recorded, it goes on.
func TestPrereleasesBuildable(t *testing.T) {
	dir := copyProfiles(t)
	before := snapshotDir(t, dir)
	err := prereleasesBuildable(fakeProxy(t, "k8s.io/apiextensions-api@v0.38.0-beta.0"), "local", dir, []string{"v1.37.2"})
	if err == nil {
		t.Fatal("a missing module: no error")
	}
	want := "kube-apiserver v1.38.0-beta.0 cannot be built from the module proxy: it does not serve k8s.io/apiextensions-api@v0.38.0-beta.0 (its 1.38 profile stays the one derived from its modules: v1.38.json)"
	if err.Error() != want || strings.Contains(err.Error(), "\n") {
		t.Errorf("error:\n got %q\nwant %q", err, want)
	}
	if after := snapshotDir(t, dir); !reflect.DeepEqual(before, after) {
		t.Error("the profiles directory changed")
	}
	if err := prereleasesBuildable(fakeProxy(t), "local", dir, []string{"v1.37.2"}); err != nil {
		t.Errorf("every module served: %v", err)
	}
	if err := prereleasesBuildable(fakeProxy(t, "sigs.k8s.io/yaml@v1.6.0"), "local", dir, []string{"v1.37.2", "v1.38.0"}); err != nil {
		t.Errorf("1.38 itself recorded: %v", err)
	}
}

func snapshotDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = bytes.Clone(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
