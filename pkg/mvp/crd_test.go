package mvp

import (
	"slices"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestCustomResourceVersionOf(t *testing.T) {
	str := func(s string) *string { return &s }
	crd := snapshot.CustomResourceDefinition{Group: "example.com", Kind: "Widget", Plural: "widgets", Versions: []snapshot.CustomResourceDefinitionVersion{
		{Name: "v1alpha1"},
		{Name: "v1beta1", Served: true, Deprecated: true, DeprecationWarning: str("example.com/v1beta1 Widget is deprecated; use v1")},
		{Name: "v1beta2", Served: true, Deprecated: true},
		{Name: "v1", Served: true, Storage: true},
		{Name: "v2beta1", Served: true},
		{Name: "v1beta3", Served: true, Deprecated: true, DeprecationWarning: str("")},
	}}
	onlyDeprecated := snapshot.CustomResourceDefinition{Group: "old.io", Kind: "Thing", Plural: "things", Versions: []snapshot.CustomResourceDefinitionVersion{
		{Name: "v1", Served: true, Deprecated: true}, {Name: "v2alpha1"}}}
	for _, c := range []struct {
		name        string
		crd         snapshot.CustomResourceDefinition
		version     string
		state       CustomResourceVersionState
		warning     string
		stated      bool
		replacement string
	}{
		{"served", crd, "v1", CustomResourceServed, "", false, "v2beta1"},
		{"deprecated, the CRD's warning", crd, "v1beta1", CustomResourceDeprecated, "example.com/v1beta1 Widget is deprecated; use v1", true, "v1"},
		// v1 outranks v2beta1: GA before beta whatever the major (CompareKubeAwareVersionStrings).
		{"deprecated, the apiserver's default warning", crd, "v1beta2", CustomResourceDeprecated, "example.com/v1beta2 Widget is deprecated; use example.com/v1 Widget", false, "v1"},
		{"deprecated, an empty warning: none sent", crd, "v1beta3", CustomResourceDeprecated, "", true, "v1"},
		{"not served", crd, "v1alpha1", CustomResourceNotServed, "", false, "v1"},
		{"absent", crd, "v3", CustomResourceAbsent, "", false, "v1"},
		{"default warning without a newer version", onlyDeprecated, "v1", CustomResourceDeprecated, "old.io/v1 Thing is deprecated", false, ""},
		{"not served, only a deprecated one served", onlyDeprecated, "v2alpha1", CustomResourceNotServed, "", false, "v1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := CustomResourceVersionOf(c.crd, c.version)
			if got.State != c.state || got.Warning != c.warning || got.WarningStated != c.stated || got.Replacement(c.version) != c.replacement {
				t.Errorf("got %+v (replacement %q), want %s %q stated %v replacement %q", got, got.Replacement(c.version), c.state, c.warning, c.stated, c.replacement)
			}
			if got.State.Serves() != (c.state == CustomResourceServed || c.state == CustomResourceDeprecated) {
				t.Errorf("Serves() = %v for %s", got.State.Serves(), got.State)
			}
		})
	}
	if got := CustomResourceVersionOf(crd, "v1").Served; !slices.Equal(got, []string{"v1", "v2beta1", "v1beta3", "v1beta2", "v1beta1"}) {
		t.Errorf("served by priority, not deprecated first: %v", got)
	}
}
