package preflight

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/test/fake/planes"
)

// upgradeTo137 is three 1.36 servers and their rolling upgrade to 1.37, which drops
// old.k8s.io/v1beta1 (the fixture profiles): a window whose clients the evidence decides.
func upgradeTo137(t *testing.T) (*snapshot.Snapshot, []simulate.Step) {
	t.Helper()
	start := planes.Three(t, "1.36")
	steps, err := simulate.UpgradePlan(start, "1.37", nil)
	if err != nil {
		t.Fatal(err)
	}
	return start, steps
}

// sourcesOf lists a report's evidence sources as KIND NAME [error].
func sourcesOf(rep *Report) string {
	var out []string
	for _, s := range rep.Evidence.Sources {
		out = append(out, strings.TrimSpace(s.Kind+" "+s.Name+" "+s.Error))
	}
	return strings.Join(out, "; ")
}

// Run gathers the client evidence its options point at: the manifests, the Helm releases (a
// failed list is a warning and a source not read) and, once the checks have found the GVRs at
// risk, their managedFields (a failed read is a warning, and the first pass stands).
func TestRunGathersClientEvidence(t *testing.T) {
	start, steps := upgradeTo137(t)
	manifest := filepath.Join(t.TempDir(), "gadget.yaml")
	if err := os.WriteFile(manifest, []byte("apiVersion: old.k8s.io/v1beta1\nkind: Gadget\nmetadata:\n  name: g\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var asked []snapshot.ManagedFieldsRequest
	readMF := func(_ context.Context, reqs []snapshot.ManagedFieldsRequest, _ *replay.Budget) ([]snapshot.ManagedFields, error) {
		asked = reqs
		return nil, errors.New("connection refused")
	}
	failHelm := func(context.Context, *replay.HelmMapper) error {
		return errors.New("secrets is forbidden")
	}
	var warnings []string
	rep, err := Run(t.Context(), Options{Start: start, Steps: steps, Target: "1.37", Manifests: []string{manifest},
		HelmReleases: failHelm, HelmReleasesName: "helm.sh/release.v1 Secrets", ManagedFields: readMF,
		Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	got := sourcesOf(rep)
	for _, want := range []string{replay.SourceManifests + " " + manifest, replay.SourceHelmReleases + " helm.sh/release.v1 Secrets secrets is forbidden"} {
		if !strings.Contains(got, want) {
			t.Errorf("sources %q, want one %q", got, want)
		}
	}
	if len(asked) == 0 {
		t.Error("managedFields not asked for the GVRs at risk")
	}
	want := "Helm releases not read: secrets is forbidden | managedFields not read: connection refused"
	if w := strings.Join(warnings, " | "); w != want {
		t.Errorf("warnings %q, want %q", w, want)
	}
	// The checks judged harm on it: the window's finding says what was read and what was not.
	var window Finding
	for _, f := range rep.Findings {
		if f.Check == CheckUnavoidableWindow.ID {
			window = f
		}
	}
	said := window.Message + " " + strings.Join(window.Evidence, " ")
	for _, want := range []string{"client evidence: manifests " + manifest, "Helm releases of helm.sh/release.v1 Secrets: secrets is forbidden"} {
		if !strings.Contains(said, want) {
			t.Errorf("the window's finding says %q, want %q in it", said, want)
		}
	}
}

// A second pass with the managedFields read: their source joins the evidence, the traffic is
// the first pass's.
func TestRunManagedFieldsSecondPass(t *testing.T) {
	start, steps := upgradeTo137(t)
	readMF := func(_ context.Context, reqs []snapshot.ManagedFieldsRequest, _ *replay.Budget) ([]snapshot.ManagedFields, error) {
		var out []snapshot.ManagedFields
		for _, r := range reqs {
			out = append(out, snapshot.ManagedFields{GVR: r.GVR, Via: r.GVR, Objects: 1, Cap: 10})
		}
		return out, nil
	}
	rep, err := Run(t.Context(), Options{Start: start, Steps: steps, Target: "1.37", ManagedFields: readMF})
	if err != nil {
		t.Fatal(err)
	}
	if got := sourcesOf(rep); !strings.Contains(got, replay.SourceManagedFields) {
		t.Errorf("sources %q, want the managedFields read", got)
	}
}

// Traffic that holds no resource request is refused, not judged safe.
func TestRunRefusesEmptyTraffic(t *testing.T) {
	start, steps := upgradeTo137(t)
	tr, err := replay.NewReader(strings.NewReader("GET /healthz\n"), "reqs.txt", replay.FormatRequests)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	_, err = Run(t.Context(), Options{Start: start, Steps: steps, Traffic: []*replay.Reader{tr}, TrafficSource: "reqs.txt", TrafficFormat: replay.FormatRequests})
	if err == nil || !strings.Contains(err.Error(), "reqs.txt: no resource request to replay") {
		t.Fatalf("err = %v, want no resource request to replay", err)
	}
}

// A manifest path that cannot be read fails the run.
func TestRunManifestUnreadable(t *testing.T) {
	start, steps := upgradeTo137(t)
	_, err := Run(t.Context(), Options{Start: start, Steps: steps, Manifests: []string{filepath.Join(t.TempDir(), "none.yaml")}})
	if err == nil {
		t.Fatal("no error for a manifest that is not there")
	}
}
