package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestPreflightEvidenceWindow: the shipped example whose counters cover 5 seconds, with no
// request of an alpha or beta API, does not pass at --fail-on blocking, and says the span and
// the window; the same counters covering more than the window pass; a shorter window, stated,
// is taken.
func TestPreflightEvidenceWindow(t *testing.T) {
	const example = "../../examples/skew-counters.yaml"
	longer := func(t *testing.T) string {
		snap, err := snapshot.LoadFile(example)
		if err != nil {
			t.Fatal(err)
		}
		for i := range snap.Servers {
			started := snap.Servers[i].Requests.ReadAt.Add(-8 * 24 * time.Hour)
			snap.Servers[i].Requests.StartedAt = &started
		}
		path := filepath.Join(t.TempDir(), "skew-counters-8d.yaml")
		if err := snap.WriteFile(path, false); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		name string
		path func(t *testing.T) string
		args []string
		exit int
		says []string
	}{
		{"counters of 5s: not a pass, naming the span and the window", func(*testing.T) string { return example }, nil, ExitFindings,
			[]string{"storage.k8s.io/v1beta1/volumeattributesclasses", "the evidence read looks back less than the 7d evidence window (--evidence-window): the request counters of kas-a 5s, kas-b 5s", "--prometheus"}},
		{"counters of 8 days: a pass at --fail-on blocking", longer, nil, ExitOK,
			[]string{"no request counted on kas-a (since it started 8d before 2026-11-23T09:36:29Z)"}},
		{"counters of 5s with a 4s window stated: a pass at --fail-on blocking", func(*testing.T) string { return example }, []string{"--evidence-window", "4s"}, ExitOK,
			[]string{"no request counted on kas-a (since it started 5s before"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, append([]string{"preflight", "--snapshot", tc.path(t), "--to", "1.37", "--fail-on", "blocking", "-o", "wide"}, tc.args...)...)
			if code != tc.exit {
				t.Errorf("exit %d, want %d\n%s\n%s", code, tc.exit, out, errOut)
			}
			for _, s := range tc.says {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
		})
	}
	for _, bad := range []string{"0s", "-1h", "7days", "1.5d"} {
		if _, errOut, code := run(t, "preflight", "--snapshot", example, "--to", "1.37", "--evidence-window", bad); code != ExitError || !strings.Contains(errOut, "--evidence-window") {
			t.Errorf("--evidence-window %s: exit %d, stderr %q; want a usage error naming the flag", bad, code, errOut)
		}
	}
}
