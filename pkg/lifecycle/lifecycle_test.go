package lifecycle

import (
	"testing"
)

func TestAt(t *testing.T) {
	ing := Row{Introduced: Release{1, 1}, Deprecated: Release{1, 14}, Removed: Release{1, 22}}
	noRemoval := Row{Introduced: Release{1, 29}}
	for _, c := range []struct {
		row  Row
		rel  string
		want State
	}{
		{ing, "1.0", NotYet}, {ing, "1.1", Current}, {ing, "1.13", Current}, {ing, "1.14", Deprecated},
		{ing, "1.21", Deprecated}, {ing, "1.22", Removed}, {ing, "v1.37.2", Removed},
		{noRemoval, "1.28", NotYet}, {noRemoval, "1.29", Current}, {noRemoval, "2.0", Current},
	} {
		rel, err := ParseRelease(c.rel)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.row.At(rel); got != c.want {
			t.Errorf("%+v at %s: got %s, want %s", c.row, c.rel, got, c.want)
		}
	}
	for _, bad := range []string{"", "1", "x.2", "1.-2"} {
		if _, err := ParseRelease(bad); err == nil {
			t.Errorf("ParseRelease(%q): no error", bad)
		}
	}
}

// The embedded table holds the removals users still meet, each citing its module.
func TestEmbeddedTable(t *testing.T) {
	tab, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		gvk                 GVK
		deprecated, removed string
		replacement         string
	}{
		{GVK{"extensions", "v1beta1", "Ingress"}, "1.14", "1.22", "networking.k8s.io/v1 Ingress"},
		{GVK{"extensions", "v1beta1", "Deployment"}, "1.8", "1.16", "apps/v1 Deployment"},
		{GVK{"flowcontrol.apiserver.k8s.io", "v1beta3", "FlowSchema"}, "1.29", "1.32", "flowcontrol.apiserver.k8s.io/v1 FlowSchema"},
		{GVK{"storage.k8s.io", "v1beta1", "VolumeAttributesClass"}, "1.34", "1.37", "storage.k8s.io/v1 VolumeAttributesClass"},
		{GVK{"policy", "v1beta1", "PodSecurityPolicy"}, "1.21", "1.25", ""},
	} {
		r, ok := tab.Lookup(c.gvk)
		if !ok {
			t.Errorf("%s: no row", c.gvk)
			continue
		}
		repl := ""
		if r.Replacement != nil {
			repl = r.Replacement.String()
		}
		if r.Deprecated.String() != c.deprecated || r.Removed.String() != c.removed || repl != c.replacement || r.Source == "" {
			t.Errorf("%s: got deprecated %s removed %s replacement %q source %q", c.gvk, r.Deprecated, r.Removed, repl, r.Source)
		}
	}
}

func TestSelect(t *testing.T) {
	tab := MustLoad()
	names := func(rows []Row) map[string]bool {
		m := map[string]bool{}
		for _, r := range rows {
			m[r.GVR()] = true
		}
		return m
	}
	removed, err := tab.Select(Query{RemovedIn: Release{1, 37}})
	if err != nil {
		t.Fatal(err)
	}
	got := names(removed)
	if !got["storage.k8s.io/v1beta1/volumeattributesclasses"] || got["extensions/v1beta1/ingresses"] {
		t.Errorf("removed in 1.37: %v", got)
	}
	for _, r := range removed {
		if r.Removed != (Release{1, 37}) || r.Resource == "" {
			t.Errorf("removed in 1.37 selected %+v", r)
		}
	}
	dep, _ := tab.Select(Query{Deprecated: true, At: Release{1, 37}})
	for _, r := range dep {
		if r.At(Release{1, 37}) != Deprecated {
			t.Errorf("deprecated at 1.37 selected %+v", r)
		}
	}
	if len(dep) == 0 {
		t.Error("nothing deprecated at 1.37")
	}
	for _, s := range []string{"policy/v1beta1/poddisruptionbudgets", "policy/v1beta1 PodDisruptionBudget"} {
		rows, err := tab.Select(Query{ReplacementFor: s})
		if err != nil || len(rows) != 1 || rows[0].Replacement == nil || rows[0].Replacement.String() != "policy/v1 PodDisruptionBudget" {
			t.Errorf("%s: %+v %v", s, rows, err)
		}
	}
	for _, bad := range []string{"apps/v1/widgets", "nonsense", "a/"} {
		if _, err := tab.Select(Query{ReplacementFor: bad}); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
