package profile

import (
	"testing"
	"testing/fstest"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestCapabilities(t *testing.T) {
	restore := ReplaceEmbedded(fstest.MapFS{
		"profiles/v1.39.0.yaml": withFull(profileFile("v1.39.0", "v1/pods"), "v1/pods", "batch/v1/jobs"),
		"profiles/v1.40.0.yaml": profileFile("v1.40.0", "v1/pods"),
	})
	defer restore()
	pods, jobs := snapshot.GVR{Version: "v1", Resource: "pods"}, snapshot.GVR{Group: "batch", Version: "v1", Resource: "jobs"}
	capable := Capabilities()
	tests := []struct {
		version   string
		gvr       snapshot.GVR
		can, know bool
	}{
		{"v1.39.0", jobs, true, true}, // in the full set, not served by default
		{"1.39", pods, true, true},    // a minor finds its profile
		{"v1.39.0", snapshot.GVR{Group: "x", Version: "v1", Resource: "y"}, false, true},
		{"v1.40.0", pods, false, false}, // no full set recorded
		{"v1.41.0", pods, false, false}, // no profile
	}
	for _, tt := range tests {
		if can, know := capable(tt.version, tt.gvr); can != tt.can || know != tt.know {
			t.Errorf("%s %s: %v %v, want %v %v", tt.version, tt.gvr, can, know, tt.can, tt.know)
		}
	}
}
