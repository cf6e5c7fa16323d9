package mvp

import "testing"

func TestPrereleaseAPIVersion(t *testing.T) {
	for v, want := range map[string]bool{"v1": false, "v2": false, "v1alpha1": true, "v1beta3": true, "v2beta1": true, "v1alpha": true, "alpha1": false, "v1gamma1": false, "": false} {
		if got := PrereleaseAPIVersion(v); got != want {
			t.Errorf("PrereleaseAPIVersion(%q) = %t, want %t", v, got, want)
		}
	}
}

func TestGateNotDefault(t *testing.T) {
	tests := []struct {
		stage   string
		enabled bool
		want    bool
	}{
		{"ALPHA", false, false}, {"ALPHA", true, true},
		{"BETA", false, false}, {"BETA", true, false},
		{"", true, false}, {"", false, true},
		{"DEPRECATED", true, false}, {"DEPRECATED", false, false},
	}
	for _, tt := range tests {
		if got := GateNotDefault(tt.stage, tt.enabled); got != tt.want {
			t.Errorf("GateNotDefault(%q, %t) = %t, want %t", tt.stage, tt.enabled, got, tt.want)
		}
	}
}
