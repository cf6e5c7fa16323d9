package snapshot

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestGVRFilterUnmatched(t *testing.T) {
	known := map[GVR]string{
		{Group: "batch", Version: "v1", Resource: "jobs"}:                  "Job",
		{Group: "batch", Version: "v1", Resource: "cronjobs"}:              "CronJob",
		{Group: "apps", Version: "v1", Resource: "deployments"}:            "Deployment",
		{Group: "", Version: "v1", Resource: "pods"}:                       "Pod",
		{Group: "widgets.example.com", Version: "v1", Resource: "widgets"}: "",
	}
	names := ResourceNames{"cj": {schema.GroupResource{Group: "batch", Resource: "cronjobs"}}}
	for _, tt := range []struct {
		name string
		f    GVRFilter
		want string // "" for no error
	}{
		{"empty", GVRFilter{}, ""},
		{"a resource", GVRFilter{Resources: []string{"jobs"}}, ""},
		{"a kind", GVRFilter{Resources: []string{"Deployment"}}, ""},
		{"a short name", GVRFilter{Resources: []string{"cj"}, Names: names}, ""},
		{"a GVR", GVRFilter{Resources: []string{"batch/v1/jobs"}}, ""},
		{"the core group", GVRFilter{Groups: []string{"core"}}, ""},
		{"a resource typo", GVRFilter{Resources: []string{"jbos"}}, "no group/version/resource matches resource jbos in the plane; the closest is jobs"},
		{"a group typo", GVRFilter{Groups: []string{"bacth"}}, "no group/version/resource matches group bacth in the plane; the closest is batch"},
		{"one entry of two", GVRFilter{Resources: []string{"jobs", "deploymnets"}}, "matches resource deploymnets in the plane; the closest is deployments"},
		{"a short name typo", GVRFilter{Resources: []string{"cjj"}, Names: names}, "the closest is cj"},
		{"nothing close", GVRFilter{Resources: []string{"zzzzzzzzzz"}}, "matches resource zzzzzzzzzz in the plane ('mvpctl routes"},
		{"each matches, not together", GVRFilter{Resources: []string{"jobs"}, Groups: []string{"apps"}}, "resource jobs; group apps in the plane: each matches something, but not together"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.f.Unmatched(known, "the plane")
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{{"jobs", "jobs", 0}, {"jbos", "jobs", 1}, {"bacth", "batch", 1}, {"", "abc", 3}, {"pods", "nodes", 2}} {
		if got := EditDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("%s, %s: %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
