package preflight

import (
	"context"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Live objects of the GVRs at risk, judged by the apiVersion and kind their
// last-applied-configuration states: rows named "live" NAMESPACE/NAME, findings as for a
// manifest's objects, a summary that counts them apart, and each object once when a resource
// is read through two of its versions.
func TestRunLiveObjects(t *testing.T) {
	start, steps := upgradeTo137(t)
	for _, c := range []struct {
		name     string
		applied  []snapshot.LastApplied
		bad      int
		check    string // a finding of this check on subject, naming where
		subject  string
		where    string
		summary  []string
		warnings string
	}{
		{"a removed apiVersion", []snapshot.LastApplied{{Namespace: "team-a", Name: "old", APIVersion: "extensions/v1beta1", Kind: "Ingress"}, {Name: "new", APIVersion: "apps/v1", Kind: "Deployment"}}, 0,
			"MVP070", "extensions/v1beta1 Ingress", "objects: live team-a/old", []string{"2 live object(s) (by their last-applied-configuration): ", "1 removed in 1.22"}, ""},
		{"a misspelt one", []snapshot.LastApplied{{Name: "typo", APIVersion: "apps/v1", Kind: "Deploymnet"}}, 0,
			"MVP071", "apps/v1 Deploymnet", "objects: live typo", []string{"1 live object(s) (by their last-applied-configuration): 1 misspelt"}, ""},
		{"unreadable annotations only: said, none judged", nil, 2, "", "", "", nil, "2 live object(s) with a last-applied-configuration annotation that states no apiVersion and kind"},
	} {
		t.Run(c.name, func(t *testing.T) {
			readMF := func(_ context.Context, reqs []snapshot.ManagedFieldsRequest, _ *replay.Budget) ([]snapshot.ManagedFields, error) {
				var out []snapshot.ManagedFields
				for _, r := range reqs {
					// Every GVR read lists the same objects (as one resource read through two versions).
					via := r.Via
					via.Version = "v1"
					out = append(out, snapshot.ManagedFields{GVR: r.GVR, Via: via, Objects: len(c.applied), Cap: 10, LastApplied: c.applied, LastAppliedUnreadable: c.bad})
				}
				return out, nil
			}
			var warned []string
			rep, err := Run(t.Context(), Options{Start: start, Steps: steps, Target: "1.37", ManagedFields: readMF, Warn: func(s string) { warned = append(warned, s) }})
			if err != nil {
				t.Fatal(err)
			}
			if c.warnings != "" && !strings.Contains(strings.Join(warned, "\n"), c.warnings) {
				t.Errorf("warnings %q, want %q", warned, c.warnings)
			}
			if c.check == "" {
				if rep.ObjectsSummary != nil || len(rep.Objects) != 0 {
					t.Errorf("objects judged: %+v", rep.Objects)
				}
				return
			}
			if len(rep.Objects) != len(c.applied) {
				t.Errorf("%d rows, want %d (each object once): %+v", len(rep.Objects), len(c.applied), rep.Objects)
			}
			for _, o := range rep.Objects {
				if o.Source != SourceLive || o.Where() != SourceLive {
					t.Errorf("row %+v: want source and place %q", o, SourceLive)
				}
			}
			for _, want := range c.summary {
				if got := rep.ObjectsSummary.Line(); !strings.Contains(got, want) {
					t.Errorf("summary %q, want %q in it", got, want)
				}
			}
			found := false
			for _, f := range rep.Findings {
				if f.Check == c.check && f.Subject == c.subject && strings.Contains(strings.Join(f.Evidence, "\n"), c.where) {
					found = true
				}
			}
			if !found {
				t.Errorf("no %s finding on %s naming %q: %+v", c.check, c.subject, c.where, rep.Findings)
			}
		})
	}
}

func TestObjectsSummaryLineLive(t *testing.T) {
	for _, c := range []struct {
		s    ObjectsSummary
		want string
	}{
		{ObjectsSummary{Objects: 5, Files: 2, Live: 2, Counts: []ObjectCount{{ObjectServed, "", 5}}},
			"3 object(s) in 2 file(s) and 2 live object(s) (by their last-applied-configuration): 5 served by every stage"},
		{ObjectsSummary{Objects: 2, Live: 2, Counts: []ObjectCount{{ObjectRemoved, "1.37", 2}}}, "2 live object(s) (by their last-applied-configuration): 2 removed in 1.37"},
		{ObjectsSummary{Objects: 2, Files: 1, Counts: []ObjectCount{{ObjectServed, "", 2}}}, "2 object(s) in 1 file(s): 2 served by every stage"},
	} {
		if got := c.s.Line(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}
