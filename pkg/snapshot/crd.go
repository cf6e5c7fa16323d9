package snapshot

import (
	"fmt"
	"sort"
	"unicode/utf8"
)

// CustomResourceDefinition is what a CustomResourceDefinition (apiextensions.k8s.io/v1) states
// of the API it adds: its group, kind and resource, and each of its versions.
type CustomResourceDefinition struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	// Plural is the resource (spec.names.plural); the object's name is Plural.Group.
	Plural   string                            `json:"plural"`
	Versions []CustomResourceDefinitionVersion `json:"versions"`
}

// CustomResourceDefinitionVersion is one spec.versions[] entry.
type CustomResourceDefinitionVersion struct {
	Name       string `json:"name"`
	Served     bool   `json:"served"`
	Storage    bool   `json:"storage,omitempty"`
	Deprecated bool   `json:"deprecated,omitempty"`
	// DeprecationWarning is the CRD's own warning for a deprecated version, as it states it
	// (text from the cluster: data, escaped where printed); nil when it states none, and the
	// apiserver then sends a default one (mvp.CustomResourceVersionOf).
	DeprecationWarning *string `json:"deprecationWarning,omitempty"`
}

// Name is the CustomResourceDefinition's name, plural.group.
func (c CustomResourceDefinition) Name() string { return c.Plural + "." + c.Group }

// MaxCustomResourceDefinitions and MaxCustomResourceVersions bound what a snapshot records of
// the CRDs: past them discovery stops reading and says so. Real clusters hold hundreds of CRDs
// of a few versions each.
const (
	MaxCustomResourceDefinitions = 10000
	MaxCustomResourceVersions    = 64
	// MaxDeprecationWarning is the longest deprecationWarning the apiserver accepts (256
	// characters, apiextensions validation); discovery cuts a longer one there, with "…".
	MaxDeprecationWarning = 256
)

// CustomResourceDefinitionsRecorded says the snapshot records each CRD's versions: the list was
// read by a release that records them (an older file has group/versions and no CRDs).
func (c *Cluster) CustomResourceDefinitionsRecorded() bool {
	return c.ListsRead != nil && c.ListsRead.CustomResourceDefinitions &&
		(len(c.CustomResourceDefinitions) > 0 || len(c.CustomResourceGroupVersions) == 0)
}

// SortCustomResourceDefinitions orders CRDs by group and kind.
func SortCustomResourceDefinitions(crds []CustomResourceDefinition) {
	sort.Slice(crds, func(i, j int) bool {
		if crds[i].Group != crds[j].Group {
			return crds[i].Group < crds[j].Group
		}
		return crds[i].Kind < crds[j].Kind
	})
}

// validateCustomResourceDefinitions checks each CRD names its group, kind, plural and versions,
// within the bounds discovery keeps to.
func validateCustomResourceDefinitions(crds []CustomResourceDefinition) error {
	if len(crds) > MaxCustomResourceDefinitions {
		return fmt.Errorf("cluster.customResourceDefinitions: %d, at most %d are recorded", len(crds), MaxCustomResourceDefinitions)
	}
	for i, d := range crds {
		f := fmt.Sprintf("cluster.customResourceDefinitions[%d]", i)
		switch {
		case d.Group == "" || d.Kind == "" || d.Plural == "":
			return fmt.Errorf("%s: group, kind and plural must be set", f)
		case len(d.Versions) == 0 || len(d.Versions) > MaxCustomResourceVersions:
			return fmt.Errorf("%s (%s).versions: %d, want 1 to %d", f, d.Name(), len(d.Versions), MaxCustomResourceVersions)
		}
		for j, v := range d.Versions {
			if v.Name == "" {
				return fmt.Errorf("%s (%s).versions[%d].name: must be set", f, d.Name(), j)
			}
			if w := v.DeprecationWarning; w != nil && utf8.RuneCountInString(*w) > MaxDeprecationWarning+1 {
				return fmt.Errorf("%s (%s).versions[%d].deprecationWarning: %d characters, at most %d", f, d.Name(), j, utf8.RuneCountInString(*w), MaxDeprecationWarning)
			}
		}
	}
	return nil
}
