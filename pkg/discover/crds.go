package discover

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// crdList decodes only what discovery needs of a CustomResourceDefinitionList, so mvpctl does
// not depend on the apiextensions module for a few fields.
type crdList struct {
	listHeader
	Items []struct {
		Spec struct {
			Group string `json:"group"`
			Names struct {
				Kind   string `json:"kind"`
				Plural string `json:"plural"`
			} `json:"names"`
			Versions []struct {
				Name               string  `json:"name"`
				Served             bool    `json:"served"`
				Storage            bool    `json:"storage"`
				Deprecated         bool    `json:"deprecated"`
				DeprecationWarning *string `json:"deprecationWarning"`
			} `json:"versions"`
		} `json:"spec"`
	} `json:"items"`
}

// crdRead is what the CRD list gave: "group/version" of every spec.versions[].name of every
// CRD, served or not (1.35+ excludes all of them from peer routing, docs/behaviour.md §6), each
// CRD with its versions, and what was cut to the bounds (said, never silent).
type crdRead struct {
	groupVersions []string
	crds          []snapshot.CustomResourceDefinition
	cut           []string
}

const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// listCRDs reads every CustomResourceDefinition, page by page, keeping at most
// snapshot.MaxCustomResourceDefinitions CRDs of at most snapshot.MaxCustomResourceVersions
// versions each, and each deprecation warning to snapshot.MaxDeprecationWarning characters.
func listCRDs(ctx context.Context, c *serverClient) (crdRead, error) {
	set := map[string]bool{}
	var out crdRead
	more := 0
	err := listPages(ctx, c, crdPath, func() (any, func() string) {
		var l crdList
		return &l, func() string {
			for _, it := range l.Items {
				for _, v := range it.Spec.Versions {
					set[snapshot.GroupVersionString(it.Spec.Group, v.Name)] = true
				}
				if len(out.crds) == snapshot.MaxCustomResourceDefinitions {
					more++
					continue
				}
				d := snapshot.CustomResourceDefinition{Group: it.Spec.Group, Kind: it.Spec.Names.Kind, Plural: it.Spec.Names.Plural,
					Versions: []snapshot.CustomResourceDefinitionVersion{}}
				if d.Group == "" || d.Kind == "" || d.Plural == "" || len(it.Spec.Versions) == 0 {
					out.cut = append(out.cut, fmt.Sprintf("a CRD without group, kind, plural or versions (%q, %q, %q, %d version(s)) not recorded", d.Group, d.Kind, d.Plural, len(it.Spec.Versions)))
					continue
				}
				for i, v := range it.Spec.Versions {
					if i == snapshot.MaxCustomResourceVersions {
						out.cut = append(out.cut, fmt.Sprintf("%s: %d versions, the first %d recorded", d.Name(), len(it.Spec.Versions), i))
						break
					}
					if v.Name == "" {
						continue
					}
					rv := snapshot.CustomResourceDefinitionVersion{Name: v.Name, Served: v.Served, Storage: v.Storage, Deprecated: v.Deprecated}
					if w := v.DeprecationWarning; w != nil {
						text := cutRunes(*w, snapshot.MaxDeprecationWarning)
						if text != *w {
							out.cut = append(out.cut, fmt.Sprintf("%s version %s: its deprecationWarning cut to %d characters", d.Name(), v.Name, snapshot.MaxDeprecationWarning))
						}
						rv.DeprecationWarning = &text
					}
					d.Versions = append(d.Versions, rv)
				}
				out.crds = append(out.crds, d)
			}
			return l.Metadata.Continue
		}
	})
	if more > 0 {
		out.cut = append(out.cut, fmt.Sprintf("%d CRD(s) past the first %d not recorded (their group/versions are)", more, snapshot.MaxCustomResourceDefinitions))
	}
	out.groupVersions = slices.Sorted(maps.Keys(set))
	snapshot.SortCustomResourceDefinitions(out.crds)
	return out, err
}

// cutRunes is s cut to n characters, with "…" when cut.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}
