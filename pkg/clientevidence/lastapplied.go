package clientevidence

import (
	"encoding/json"

	"github.com/mvpctl/mvpctl/internal/textsafe"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// The kubectl.kubernetes.io/last-applied-configuration annotation of live objects, read in the
// same metadata-only list as their managedFields (managedfields.go), as kube-no-trouble reads
// it: the apiVersion and kind of the manifest `kubectl apply` last applied, which its user
// applies again after the upgrade.

// LastAppliedAnnotation is the annotation `kubectl apply` (client-side) writes.
const LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// Bounds of what is read of one annotation: the apiserver keeps an object's annotations under
// 256 KiB in all; an apiVersion is a group (at most 253 characters), "/" and a version (63).
const (
	maxLastApplied      = 256 << 10
	maxLastAppliedField = 253 + 1 + 63
)

// lastApplied reads the apiVersion and kind an object's last-applied-configuration states; ok
// is false when the annotation is absent. A value that is not such JSON, or over the bounds,
// is read as unreadable (ok, with unreadable set).
func lastApplied(annotations map[string]string, namespace, name string) (la snapshot.LastApplied, ok, unreadable bool) {
	v, ok := annotations[LastAppliedAnnotation]
	if !ok {
		return la, false, false
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if len(v) > maxLastApplied || json.Unmarshal([]byte(v), &head) != nil ||
		head.APIVersion == "" || head.Kind == "" || len(head.APIVersion) > maxLastAppliedField || len(head.Kind) > maxLastAppliedField {
		return la, true, true
	}
	return snapshot.LastApplied{Namespace: namespace, Name: name, APIVersion: textsafe.Visible(head.APIVersion), Kind: textsafe.Visible(head.Kind)}, true, false
}
