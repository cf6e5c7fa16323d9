package simulate

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestRemovedNoteWords pins, in testdata/removed-notes.golden, what an upgrade from 1.37 to
// 1.38 of a server whose --runtime-config enables resource.k8s.io/v1beta1 (which 1.38
// removes) says, for each way its one-release escape is known, and for a stated
// --feature-gates that names the discovery gate 1.38 deletes: the step's notes, and what the
// simulation rests on.
func TestRemovedNoteWords(t *testing.T) {
	useEmbedded(t)
	const rc = "resource.k8s.io/v1beta1=true"
	manifest := snapshot.ManifestSource("/etc/kubernetes/manifests/kube-apiserver.yaml")
	env := func(value string, from bool) []snapshot.EnvVar {
		return []snapshot.EnvVar{{Name: mvp.ServeRemovedAPIsEnv, Value: value, ValueFrom: from}}
	}
	rcFlag := []snapshot.Flag{{Name: mvp.FlagRuntimeConfig, Value: rc}}
	var golden []string
	for _, tc := range []struct {
		name   string
		stated *snapshot.StatedFlags
	}{
		{"no installer configuration", nil},
		{"kubeadm-config (no environment)", &snapshot.StatedFlags{Source: "kube-system/kubeadm-config", Flags: rcFlag}},
		{"manifest, escape true", &snapshot.StatedFlags{Source: manifest, Flags: rcFlag, Env: env("true", false)}},
		{"manifest, escape false", &snapshot.StatedFlags{Source: manifest, Flags: rcFlag, Env: env("false", false)}},
		{"manifest, escape unreadable", &snapshot.StatedFlags{Source: manifest, Flags: rcFlag, Env: env("maybe", false)}},
		{"manifest, escape valueFrom", &snapshot.StatedFlags{Source: manifest, Flags: rcFlag, Env: env("", true)}},
		{"manifest, no escape", &snapshot.StatedFlags{Source: manifest, Flags: rcFlag}},
		{"manifest, the deleted discovery gate", &snapshot.StatedFlags{Source: manifest,
			Flags: append([]snapshot.Flag{{Name: "feature-gates", Value: mvp.RemovedDiscoveryGate + "=true"}}, rcFlag...)}},
	} {
		start, err := FromProfiles([]ServerVersion{{Name: "a", Version: "1.37", RuntimeConfig: rc}}, time.Unix(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		start.Servers[0].Stated = tc.stated
		sim, err := Run(start, []Step{{Action: ActionUpgrade, Server: "a", To: "1.38"}})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		out := tc.name + ":\n"
		for _, n := range sim.Steps[1].Notes {
			out += "  note: " + n + "\n"
		}
		for _, a := range sim.Assumptions {
			out += "  assumed: " + a + "\n"
		}
		golden = append(golden, out)
	}
	// The escape on, but a profile that does not record what it serves.
	p, err := profile.Lookup("1.38")
	if err != nil {
		t.Fatal(err)
	}
	p.FullServeRemoved = nil
	srv := snapshot.Server{Name: "a", Stated: &snapshot.StatedFlags{Source: manifest, Flags: rcFlag, Env: env("true", false)}}
	cfg, err := mvp.ParseRuntimeConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	_, done, err := upgradedResources(&srv, p, upgradeConfig{RuntimeConfig: cfg, Runtime: sourceStep})
	if err != nil {
		t.Fatal(err)
	}
	out := "manifest, escape true, a profile without what it serves:\n"
	for _, n := range wordNotes(done.notes) {
		out += "  note: " + n + "\n"
	}
	golden = append(golden, out)
	checkGolden(t, "removed-notes.golden", strings.Join(golden, ""))
}

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -run %s -update rewrites it):\n%s", path, t.Name(), fmt.Sprint(got))
	}
}
