package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/lifecycle"
)

const committed = "../../../pkg/lifecycle/lifecycle.json"

// TestCommittedTableIsDerived re-derives pkg/lifecycle/lifecycle.json from the k8s.io/api
// modules it lists and fails when the committed file differs (run make lifecycle). A module
// missing from the cache is downloaded through `go mod download` (the module proxy, as the
// e2e suite's builds need); a download that fails fails the test.
func TestCommittedTableIsDerived(t *testing.T) {
	want, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	var tab lifecycle.Table
	if err := json.Unmarshal(want, &tab); err != nil {
		t.Fatal(err)
	}
	if len(tab.Modules) == 0 {
		t.Fatal("the committed table lists no modules")
	}
	var versions []string
	dirs := map[string]string{}
	for _, m := range tab.Modules {
		v := strings.TrimPrefix(m, module+"@")
		versions = append(versions, v)
		dirs[v] = download(t, v)
	}
	got, err := Derive(versions, dirs)
	if err != nil {
		t.Fatal(err)
	}
	if err := MapResources(&got); err != nil {
		t.Fatal(err)
	}
	data, err := Encode(got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want) {
		t.Errorf("pkg/lifecycle/lifecycle.json is not what the modules it lists give: run make lifecycle")
	}
	// Every type with a lifecycle in the newest module has a row citing it.
	newest := versions[len(versions)-1]
	rows, err := deriveModule(dirs[newest], module+"@"+newest)
	if err != nil {
		t.Fatal(err)
	}
	rows = append(rows[:0:0], rows...)
	mapped := lifecycle.Table{Rows: rows}
	if err := MapResources(&mapped); err != nil {
		t.Fatal(err)
	}
	for _, r := range mapped.Rows {
		if r.Source != module+"@"+newest {
			continue
		}
		row, ok := tab.Lookup(r.GVK)
		a, _ := json.Marshal(row)
		b, _ := json.Marshal(r)
		if !ok || !bytes.Equal(a, b) {
			t.Errorf("%s: committed row %s, module %s states %s", r.GVK, a, newest, b)
		}
	}
}

// download is the directory of k8s.io/api@version in the module cache, downloaded when missing.
func download(t *testing.T, version string) string {
	t.Helper()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	cmd := exec.Command(goBin, "mod", "download", "-json", module+"@"+version)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download %s@%s: %v: %s", module, version, err, out)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		t.Fatalf("go mod download %s@%s: no directory (%v): %s", module, version, err, out)
	}
	return m.Dir
}

const fixture = `package v1beta1

import schema "k8s.io/apimachinery/pkg/runtime/schema"

func (in *Ingress) APILifecycleIntroduced() (major, minor int) { return 1, 1 }
func (in *Ingress) APILifecycleDeprecated() (major, minor int) { return 1, 14 }
func (in *Ingress) APILifecycleReplacement() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}
}
func (in *Ingress) APILifecycleRemoved() (major, minor int) { return 1, 22 }
func (in *IngressList) APILifecycleIntroduced() (major, minor int) { return 1, 1 }
func (in *Policy) APILifecycleIntroduced() (major, minor int) { return 1, 3 }
func (in *Ingress) DeepCopy() *Ingress { return nil }
`

func TestParseLifecycle(t *testing.T) {
	rows, err := ParseLifecycle([]byte(fixture), "extensions", "v1beta1", "k8s.io/api@v0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	want := []lifecycle.Row{
		{GVK: lifecycle.GVK{Group: "extensions", Version: "v1beta1", Kind: "Ingress"}, Resource: "ingresses",
			Introduced: lifecycle.Release{Major: 1, Minor: 1}, Deprecated: lifecycle.Release{Major: 1, Minor: 14}, Removed: lifecycle.Release{Major: 1, Minor: 22},
			Replacement: &lifecycle.GVK{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}, Source: "k8s.io/api@v0.0.1"},
		{GVK: lifecycle.GVK{Group: "extensions", Version: "v1beta1", Kind: "IngressList"}, Introduced: lifecycle.Release{Major: 1, Minor: 1}, Source: "k8s.io/api@v0.0.1"},
		{GVK: lifecycle.GVK{Group: "extensions", Version: "v1beta1", Kind: "Policy"}, Resource: "policies", Introduced: lifecycle.Release{Major: 1, Minor: 3}, Source: "k8s.io/api@v0.0.1"},
	}
	if len(rows) != len(want) {
		t.Fatalf("got %d rows, want %d: %+v", len(rows), len(want), rows)
	}
	for i := range want {
		if rows[i].GVK != want[i].GVK || rows[i].Resource != want[i].Resource || rows[i].Introduced != want[i].Introduced ||
			rows[i].Deprecated != want[i].Deprecated || rows[i].Removed != want[i].Removed || rows[i].Source != want[i].Source ||
			(rows[i].Replacement == nil) != (want[i].Replacement == nil) || rows[i].Replacement != nil && *rows[i].Replacement != *want[i].Replacement {
			t.Errorf("row %d: got %+v, want %+v", i, rows[i], want[i])
		}
	}
}

// A lifecycle function that is not a literal is an error, never a guessed row.
func TestParseLifecycleRefusesWhatItCannotRead(t *testing.T) {
	for name, src := range map[string]string{
		"computed":    "package x\nfunc (in *A) APILifecycleRemoved() (major, minor int) { return 1, 2 + 3 }\n",
		"two stmts":   "package x\nfunc (in *A) APILifecycleRemoved() (major, minor int) { x := 1; return x, 2 }\n",
		"unknown":     "package x\nfunc (in *A) APILifecycleRenamed() (major, minor int) { return 1, 2 }\n",
		"gvk field":   "package x\nfunc (in *A) APILifecycleReplacement() schema.GroupVersionKind { return schema.GroupVersionKind{Grp: \"a\"} }\n",
		"not parsing": "package x\nfunc (",
	} {
		if _, err := ParseLifecycle([]byte(src), "g", "v1", "m"); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Derive keeps, for a type the newest module dropped, the row of the last module that held it,
// and otherwise the newest module's row.
func TestDeriveNewestModuleWins(t *testing.T) {
	mk := func(files map[string]string) string {
		dir := t.TempDir()
		for p, s := range files {
			full := filepath.Join(dir, p)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	reg := "package v1beta1\nconst GroupName = \"policy\"\n"
	old := mk(map[string]string{
		"policy/v1beta1/register.go": reg,
		"policy/v1beta1/" + lifecycleFile: "package v1beta1\nfunc (in *PodSecurityPolicy) APILifecycleRemoved() (major, minor int) { return 1, 25 }\n" +
			"func (in *PodDisruptionBudget) APILifecycleRemoved() (major, minor int) { return 1, 24 }\n",
	})
	newer := mk(map[string]string{
		"policy/v1beta1/register.go":      reg,
		"policy/v1beta1/" + lifecycleFile: "package v1beta1\nfunc (in *PodDisruptionBudget) APILifecycleRemoved() (major, minor int) { return 1, 25 }\n",
	})
	tab, err := Derive([]string{"v0.1.0", "v0.2.0"}, map[string]string{"v0.1.0": old, "v0.2.0": newer})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"PodDisruptionBudget": "1.25 k8s.io/api@v0.2.0", "PodSecurityPolicy": "1.25 k8s.io/api@v0.1.0"}
	if len(tab.Rows) != len(want) {
		t.Fatalf("rows: %+v", tab.Rows)
	}
	for _, r := range tab.Rows {
		if got := r.Removed.String() + " " + r.Source; got != want[r.Kind] || r.Group != "policy" || r.Version != "v1beta1" {
			t.Errorf("%s: got %s %s, want %s", r.GVK, r.GVK.APIVersion(), got, want[r.Kind])
		}
	}
}
