package simulate

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestRuntimeConfigViewWords(t *testing.T) {
	tests := []struct {
		name        string
		v           RuntimeConfigView
		full, brief string
	}{
		{"stated, none", RuntimeConfigView{Stated: &StatedConfig{Source: "kubeadm-config"}}, "as stated (kubeadm-config): <none>", "as stated (kubeadm-config): <none>"},
		{"stated, the server disagrees", RuntimeConfigView{Stated: &StatedConfig{Source: "manifest", RuntimeConfig: "batch/v1=false", RuntimeConfigDisagreement: "it serves batch/v1"}},
			"as stated (manifest): batch/v1=false — it serves batch/v1; the server wins", "as stated (manifest): batch/v1=false — it serves batch/v1; the server wins"},
		{"unknown", RuntimeConfigView{Observed: ObservedConfig{Unknown: "no profile"}}, "as observed: unknown (no profile)", "as observed: unknown (no profile)"},
		{"misfits", RuntimeConfigView{Observed: ObservedConfig{RuntimeConfig: "x", Misfits: []string{"a", "b", "c", "d"}}},
			"as observed: fits no runtime-config (4 GVRs do not fit, e.g. a; b; c)", "as observed: unclear (what it serves fits no --runtime-config; --verbose says why)"},
		{"the defaults", RuntimeConfigView{Observed: ObservedConfig{}}, "as observed: the defaults", "as observed: the defaults"},
		{"a runtime-config", RuntimeConfigView{Observed: ObservedConfig{RuntimeConfig: "api/all=true"}}, "as observed: api/all=true", "as observed: api/all=true"},
	}
	for _, tt := range tests {
		if got := tt.v.Full(); got != tt.full {
			t.Errorf("%s: Full() = %q, want %q", tt.name, got, tt.full)
		}
		if got := tt.v.Brief(); got != tt.brief {
			t.Errorf("%s: Brief() = %q, want %q", tt.name, got, tt.brief)
		}
	}
}

// RuntimeConfigs leaves out the servers that could not be read, and falls back to what a
// server serves when its stated flags cannot be read.
func TestRuntimeConfigs(t *testing.T) {
	snap := snapshot.New()
	snap.Servers = []snapshot.Server{
		{Name: "up", Version: "v1.36.3", Reachable: true},
		{Name: "down", Version: "v1.36.3"},
	}
	got := RuntimeConfigs(snap)
	if _, ok := got["down"]; ok || len(got) != 1 {
		t.Fatalf("RuntimeConfigs = %v, want the reachable server only", got)
	}
	if v := got["up"]; v.Stated != nil || v.Observed.Server != "up" {
		t.Errorf("up: %+v, want observed", v)
	}
}
