package preflight

import (
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestSubjectGVR(t *testing.T) {
	for _, tc := range []struct{ subject, gvr, group string }{
		{"kas-a batch/v1/jobs", "batch/v1/jobs", ""},
		{"batch/v1/jobs@kas-a", "batch/v1/jobs", ""},
		{"batch/v1beta1@kas-a", "", "batch"},
		{"batch/v1/jobs", "batch/v1/jobs", ""},
		{"kas-a v1/pods", "v1/pods", ""},
		{"kas-a batch/v1beta1", "", "batch"},
		{"kas-a resource.k8s.io/v1alpha3", "", "resource.k8s.io"},
		{"kas-a", "", ""},
		{"audit.log", "", ""},
		{"kubectl/v1.36.0 (linux/amd64)", "", ""},
	} {
		gvr, group := subjectGVR(tc.subject)
		if gvr != tc.gvr || group != tc.group {
			t.Errorf("subjectGVR(%q) = %q, %q; want %q, %q", tc.subject, gvr, group, tc.gvr, tc.group)
		}
	}
}

// TestNarrowPreflight: a filter keeps the findings about the GVRs (and groups) it selects and
// those about no GVR, counts the summary again, and says how many it left out.
func TestNarrowPreflight(t *testing.T) {
	findings := []Finding{
		{Check: "MVP001", Severity: Warning, Subject: "kas-a"},
		{Check: "MVP010", Severity: Blocking, Subject: "kas-a batch/v1/jobs"},
		{Check: "MVP010", Severity: Blocking, Subject: "kas-a resource.k8s.io/v1beta1/resourceclaims"},
		{Check: "MVP012", Severity: Blocking, Subject: "kas-b resource.k8s.io/v1beta1"},
		{Check: "MVP021", Severity: Blocking, Subject: "v1/pods"},
	}
	kinds := map[snapshot.GVR]string{{Group: "batch", Version: "v1", Resource: "jobs"}: "Job"}
	for _, tc := range []struct {
		f       snapshot.GVRFilter
		checks  string
		hidden  int
		summary Summary
	}{
		{snapshot.GVRFilter{Groups: []string{"batch"}}, "MVP001 MVP010", 3, Summary{Blocking: 1, Warning: 1, Result: "blocking"}},
		{snapshot.GVRFilter{Groups: []string{"resource.k8s.io"}}, "MVP001 MVP010 MVP012", 2, Summary{Blocking: 2, Warning: 1, Result: "blocking"}},
		{snapshot.GVRFilter{Resources: []string{"Job"}}, "MVP001 MVP010", 3, Summary{Blocking: 1, Warning: 1, Result: "blocking"}},
		{snapshot.GVRFilter{Groups: []string{"core"}}, "MVP001 MVP021", 3, Summary{Blocking: 1, Warning: 1, Result: "blocking"}},
		{snapshot.GVRFilter{Groups: []string{"apps"}}, "MVP001", 4, Summary{Warning: 1, Result: "warning"}},
	} {
		rep := &Report{Findings: append([]Finding(nil), findings...)}
		rep.summarize()
		rep.Narrow(tc.f, kinds)
		var checks []string
		for _, f := range rep.Findings {
			checks = append(checks, f.Check)
		}
		if got := strings.Join(checks, " "); got != tc.checks || rep.Filtered == nil || rep.Filtered.Hidden != tc.hidden || rep.Summary != tc.summary {
			t.Errorf("%s: findings %s, filtered %+v, summary %+v; want %s, %d hidden, %+v", tc.f, got, rep.Filtered, rep.Summary, tc.checks, tc.hidden, tc.summary)
		}
	}
	// Accepted findings are narrowed alike: the summary's accepted count is the filter's.
	rep := &Report{Findings: append([]Finding(nil), findings[:1]...), Accepted: []AcceptedFinding{
		{Finding: findings[1]}, {Finding: findings[2]}}}
	rep.summarize()
	rep.Narrow(snapshot.GVRFilter{Groups: []string{"batch"}}, kinds)
	if len(rep.Accepted) != 1 || rep.Accepted[0].Subject != "kas-a batch/v1/jobs" || rep.Summary.Accepted != 1 || rep.Filtered.Hidden != 1 {
		t.Errorf("accepted after --group batch: %+v, summary %+v, filtered %+v", rep.Accepted, rep.Summary, rep.Filtered)
	}
	rep = &Report{Findings: findings}
	rep.Narrow(snapshot.GVRFilter{}, nil)
	if len(rep.Findings) != len(findings) || rep.Filtered != nil {
		t.Errorf("an empty filter changed the report: %+v", rep)
	}
}
