package snapshot

import "testing"

// TestStatedBy: flags a manifest states say so; a ConfigMap's, or a file whose name merely
// contains "manifest", do not.
func TestStatedBy(t *testing.T) {
	for _, tt := range []struct {
		source string
		want   StatedBy
	}{
		{ManifestSource("/etc/kubernetes/manifests/kube-apiserver.yaml"), StatedByManifest},
		{"kube-system/kubeadm-config (kubeadm.k8s.io/v1beta4)", StatedByConfiguration},
		{"my manifest.yaml", StatedByConfiguration},
	} {
		if got := (&StatedFlags{Source: tt.source}).By(); got != tt.want {
			t.Errorf("%q: %d, want %d", tt.source, got, tt.want)
		}
	}
}
