package lifecycle_test

// An external test: pkg/profile imports pkg/lifecycle.

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/lifecycle"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// The kind-to-resource rule agrees with the discovery of every recorded profile, for every row
// whose kind a profile's binary serves (api/all=true, with the one-release escape).
func TestResourceRuleAgreesWithProfiles(t *testing.T) {
	tab := lifecycle.MustLoad()
	ps, err := profile.All()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, p := range ps {
		for _, set := range [][]snapshot.Resource{p.Resources, p.Full, p.FullServeRemoved} {
			for _, res := range set {
				r, ok := tab.Lookup(lifecycle.GVK{res.Group, res.Version, res.Kind})
				if !ok {
					continue
				}
				checked++
				if r.Resource != res.Resource {
					t.Errorf("%s: the rule gives %q, profile %s serves it as %q", r.GVK, r.Resource, p.Version, res.Resource)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no row is served by any profile: nothing checked")
	}
	t.Logf("%d served kinds checked", checked)
}
