package snapshot

import "testing"

// TestGVRFilter: --resource and --group, as every command reads them.
func TestGVRFilter(t *testing.T) {
	jobs := GVR{Group: "batch", Version: "v1", Resource: "jobs"}
	pods := GVR{Version: "v1", Resource: "pods"}
	claims := GVR{Group: "resource.k8s.io", Version: "v1beta1", Resource: "resourceclaims"}
	for _, tc := range []struct {
		f    GVRFilter
		g    GVR
		kind string
		want bool
	}{
		{GVRFilter{}, jobs, "Job", true},
		{GVRFilter{Resources: []string{"jobs"}}, jobs, "", true},
		{GVRFilter{Resources: []string{"JOBS"}}, jobs, "", true},
		{GVRFilter{Resources: []string{"jobs.batch"}}, jobs, "", true},
		{GVRFilter{Resources: []string{"jobs.v1.batch"}}, jobs, "", true},
		{GVRFilter{Resources: []string{"jobs.v2.batch"}}, jobs, "", false},
		{GVRFilter{Resources: []string{"batch/v1/jobs"}}, jobs, "", true},
		{GVRFilter{Resources: []string{"batch/v2/jobs"}}, jobs, "", false},
		{GVRFilter{Resources: []string{"Job"}}, jobs, "Job", true},
		{GVRFilter{Resources: []string{"Job"}}, jobs, "", false},
		{GVRFilter{Resources: []string{"pods", " jobs"}}, jobs, "", true},
		{GVRFilter{Resources: []string{"v1/pods"}}, pods, "", true},
		{GVRFilter{Resources: []string{"pods.core"}}, pods, "", false},
		{GVRFilter{Groups: []string{"batch"}}, jobs, "", true},
		{GVRFilter{Groups: []string{"batch"}}, pods, "", false},
		{GVRFilter{Groups: []string{"core"}}, pods, "", true},
		{GVRFilter{Groups: []string{`""`}}, pods, "", true},
		{GVRFilter{Groups: []string{"resource.k8s.io"}}, claims, "", true},
		{GVRFilter{Groups: []string{"resource"}}, claims, "", false},
		// Both: a GVR must match each.
		{GVRFilter{Resources: []string{"jobs"}, Groups: []string{"apps"}}, jobs, "", false},
		{GVRFilter{Resources: []string{"resourceclaims"}, Groups: []string{"resource.k8s.io"}}, claims, "", true},
	} {
		if got := tc.f.Match(tc.g, tc.kind); got != tc.want {
			t.Errorf("%+v matches %s (kind %q): %v, want %v", tc.f, tc.g, tc.kind, got, tc.want)
		}
	}
	// MatchName looks the kind up, also for a version the kinds do not list.
	kinds := map[GVR]string{jobs: "Job", {Group: "batch", Resource: "jobs"}: "Job"}
	f := GVRFilter{Resources: []string{"Job"}}
	for name, want := range map[string]bool{"batch/v1/jobs": true, "batch/v2/jobs": true, "batch/v1/cronjobs": false, "not a gvr": false} {
		if got := f.MatchName(name, kinds); got != want {
			t.Errorf("MatchName(%q) = %v, want %v", name, got, want)
		}
	}
	if !(GVRFilter{}).MatchName("anything", nil) {
		t.Error("an empty filter matches every name")
	}
}
