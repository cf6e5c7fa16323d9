package profile

import "testing"

// On the profiles built into mvpctl.
func TestBuiltinGroup(t *testing.T) {
	defer ReplaceEmbedded(nil)()
	for group, want := range map[string]bool{
		"":                            true, // core
		"apps":                        true,
		"extensions":                  true, // removed long ago: the lifecycle table keeps it
		"apiextensions.k8s.io":        true, // not in k8s.io/api: the profiles serve it
		"storagemigration.k8s.io":     true,
		"cert-manager.io":             false,
		"crd.mvpctl.io":               false,
		"metrics.k8s.io":              false, // metrics-server's, an aggregated API
		"not-a-group.example.invalid": false,
	} {
		if got := BuiltinGroup(group); got != want {
			t.Errorf("BuiltinGroup(%q) = %v, want %v", group, got, want)
		}
	}
}
