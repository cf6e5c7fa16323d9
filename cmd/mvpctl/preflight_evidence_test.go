package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestPreflightExampleWithClientEvidence: the shipped example blocks on every alpha and beta
// API its servers answer when nothing says who uses them. Given both servers' request
// counters (the client evidence a live snapshot records), it warns when they count no request
// of those APIs, saying what was read and over what span, and blocks when they count one,
// naming the count, the server and the span.
func TestPreflightExampleWithClientEvidence(t *testing.T) {
	stable := []snapshot.RequestCount{
		{Version: "v1", Resource: "pods", Verb: "LIST", Count: 420},
		{Group: "batch", Version: "v1", Resource: "jobs", Verb: "WATCH", Count: 12},
		{Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Verb: "UPDATE", Count: 9000},
	}
	client := snapshot.RequestCount{Group: "resource.k8s.io", Version: "v1beta1", Resource: "resourceclaims", Verb: "GET", Count: 7}
	manifests := filepath.Join(t.TempDir(), "manifests")
	writeManifest(t, filepath.Join(manifests, "apps.yaml"), "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n")
	claims := filepath.Join(t.TempDir(), "claims")
	writeManifest(t, filepath.Join(claims, "claim.json"), `{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim", "metadata": {"name": "gpu"}}]}`)
	for _, tc := range []struct {
		name   string
		onKasB []snapshot.RequestCount
		args   []string
		exit   int
		says   []string
	}{
		{"no request of an alpha or beta API counted over a window the counters cover, manifests without such objects", nil, []string{"--manifests", manifests, "--evidence-window", "3d"}, ExitIncomplete,
			[]string{"but no request counted on kas-a (since it started 3d before 2026-11-27T12:00:00Z), kas-b (since it started 3d before 2026-11-27T12:00:00Z) uses it"}},
		{"a manifest holding an object of a beta API", nil, []string{"--manifests", claims}, ExitFindings,
			[]string{"clients use it: " + filepath.Join(claims, "claim.json") + ":2 (ResourceClaim resource.k8s.io/v1beta1)"}},
		{"requests of a beta API counted on kas-b", []snapshot.RequestCount{client}, nil, ExitFindings,
			[]string{"resource.k8s.io/v1beta1/resourceclaims", "clients use it: 7 request(s) on kas-b over 3d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap, err := snapshot.LoadFile("../../examples/skew.yaml")
			if err != nil {
				t.Fatal(err)
			}
			read := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
			started := read.Add(-75 * time.Hour)
			for i := range snap.Servers {
				counts := append([]snapshot.RequestCount(nil), stable...)
				if snap.Servers[i].Name == "kas-b" {
					counts = append(counts, tc.onKasB...)
				}
				snap.Servers[i].Requests = &snapshot.RequestCounts{ReadAt: read, StartedAt: &started, Counts: counts}
			}
			path := filepath.Join(t.TempDir(), "skew-counted.yaml")
			if err := snap.WriteFile(path, false); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := run(t, append([]string{"preflight", "--snapshot", path, "--to", "1.37"}, tc.args...)...)
			if code != tc.exit {
				t.Errorf("exit %d, want %d\n%s\n%s", code, tc.exit, out, errOut)
			}
			for _, s := range tc.says {
				if !strings.Contains(strings.Join(paragraphs(out), "\n"), s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
		})
	}
}

func writeManifest(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
