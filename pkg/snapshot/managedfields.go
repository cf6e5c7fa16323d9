package snapshot

import "time"

// ManagedFields is what the metadata.managedFields of one GVR's live objects say of the
// clients that write them: each field manager, the apiVersion it wrote with, how many objects
// and when last. Read as metadata only (PartialObjectMetadataList), paged, up to Cap objects.
type ManagedFields struct {
	GVR GVR `json:"gvr"`
	// Via is the GVR the objects were listed through: another version of the same resource
	// when one is served, so that the read does not add to GVR's own request counters (the
	// objects and their managedFields are the same in every version); else GVR itself.
	Via GVR `json:"via"`
	// Objects is how many objects were read; Capped says there were more than Cap.
	Objects int  `json:"objects"`
	Cap     int  `json:"cap"`
	Capped  bool `json:"capped,omitempty"`
	// Error says why the list could not be read (no permission, the GVR not served where it
	// was read); Managers is then empty or partial.
	Error    string         `json:"error,omitempty"`
	Managers []FieldManager `json:"managers,omitempty"`
	// ReadAt is when the list was read.
	ReadAt time.Time `json:"readAt"`
	// LastApplied are the objects read whose kubectl.kubernetes.io/last-applied-configuration
	// annotation states an apiVersion and kind: what `kubectl apply` last applied, the manifest
	// its user keeps and applies again. LastAppliedUnreadable counts the annotations that do
	// not (not JSON, no apiVersion or kind, over the bound).
	LastApplied           []LastApplied `json:"lastApplied,omitempty"`
	LastAppliedUnreadable int           `json:"lastAppliedUnreadable,omitempty"`
}

// LastApplied is one live object and the apiVersion and kind its last-applied-configuration
// states (text from the cluster: data).
type LastApplied struct {
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// FieldManager is one manager of a GVR's objects, by the apiVersion it wrote with.
type FieldManager struct {
	Manager    string `json:"manager"`
	APIVersion string `json:"apiVersion"`
	Operation  string `json:"operation,omitempty"`
	Objects    int    `json:"objects"`
	// Newest is the newest time it wrote one of them.
	Newest *time.Time `json:"newest,omitempty"`
}

// ManagedFieldsRequest asks for the managedFields of GVR's objects, listed through Via.
type ManagedFieldsRequest struct{ GVR, Via GVR }

// HelmRelease is the newest revision of one Helm release as its helm.sh/release.v1 Secret
// holds it: the manifest it applied.
type HelmRelease struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Revision  int    `json:"revision"`
	Status    string `json:"status,omitempty"`
	Manifest  string `json:"-"`
}
