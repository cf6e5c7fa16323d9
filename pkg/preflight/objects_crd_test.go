package preflight

import (
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/lifecycle"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestJudgeByCRD: objects of add-on APIs judged by what the cluster's CRDs state of each
// version (a snapshot that records them); without them, as before, by discovery only.
func TestJudgeByCRD(t *testing.T) {
	str := func(s string) *string { return &s }
	// What discovery lists: the served versions only.
	served := gvks("solo.io/v1 Solo", "apps/v1 Deployment", "example.com/v1 Widget", "example.com/v1beta1 Widget", "gadgets.io/v2 Gadget", "gadgets.io/v1 Gadget")
	st := []stage{{name: "the start", served: served, release: lifecycle.Release{Major: 1, Minor: 36}},
		{name: "the target", served: served, release: lifecycle.Release{Major: 1, Minor: 37}}}
	crds := []snapshot.CustomResourceDefinition{
		{Group: "example.com", Kind: "Widget", Plural: "widgets", Versions: []snapshot.CustomResourceDefinitionVersion{
			{Name: "v1", Served: true, Storage: true},
			{Name: "v1beta1", Served: true, Deprecated: true, DeprecationWarning: str("example.com/v1beta1 Widget is deprecated; \"migrate\" to v1\n\x1b")},
			{Name: "v1alpha1"}}},
		{Group: "gadgets.io", Kind: "Gadget", Plural: "gadgets", Versions: []snapshot.CustomResourceDefinitionVersion{
			{Name: "v2", Served: true, Storage: true}, {Name: "v1", Served: true, Deprecated: true}}},
		{Group: "old.io", Kind: "Relic", Plural: "relics", Versions: []snapshot.CustomResourceDefinitionVersion{{Name: "v1", Storage: true}}},
		{Group: "solo.io", Kind: "Solo", Plural: "solos", Versions: []snapshot.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true, Deprecated: true}}},
	}
	gvs := []string{"solo.io/v1", "example.com/v1", "example.com/v1alpha1", "example.com/v1beta1", "gadgets.io/v1", "gadgets.io/v2", "old.io/v1"}
	recorded := snapshot.Cluster{CustomResourceGroupVersions: gvs, CustomResourceDefinitions: crds, ListsRead: &snapshot.ListsRead{CustomResourceDefinitions: true, APIServices: true}}
	older := snapshot.Cluster{CustomResourceGroupVersions: gvs, ListsRead: &snapshot.ListsRead{CustomResourceDefinitions: true, APIServices: true}}
	for _, c := range []struct {
		name        string
		cluster     snapshot.Cluster
		obj         string
		verdict     ObjectVerdict
		replacement string
		says        []string // in the finding's message, hint or evidence
	}{
		{"served", recorded, "example.com/v1 Widget", ObjectServed, "", nil},
		{"deprecated, the CRD's warning quoted", recorded, "example.com/v1beta1 Widget", ObjectDeprecated, "example.com/v1 Widget",
			[]string{`info: 1 object(s) of example.com/v1beta1 Widget: served by every stage, but its CustomResourceDefinition widgets.example.com deprecates version v1beta1; each request gets the warning "example.com/v1beta1 Widget is deprecated; "migrate" to v1\x0a\x1b"`,
				"use example.com/v1 Widget instead (a version its CRD serves",
				"crd: widgets.example.com spec.versions v1 (served, storage), v1beta1 (served, deprecated), v1alpha1 (not served)"}},
		{"deprecated, the apiserver's default warning", recorded, "gadgets.io/v1 Gadget", ObjectDeprecated, "gadgets.io/v2 Gadget",
			[]string{`each request gets the warning "gadgets.io/v1 Gadget is deprecated; use gadgets.io/v2 Gadget"`}},
		{"not served", recorded, "example.com/v1alpha1 Widget", ObjectNotServed, "example.com/v1 Widget",
			[]string{"blocking: 1 object(s) of example.com/v1alpha1 Widget: its CustomResourceDefinition widgets.example.com does not serve version v1alpha1 (served: false) and serves v1, v1beta1: applying them fails today and after the upgrade",
				"use example.com/v1 Widget instead"}},
		{"a version the CRD does not have", recorded, "example.com/v2 Widget", ObjectNotServed, "example.com/v1 Widget",
			[]string{"its CustomResourceDefinition widgets.example.com has no version v2 and serves v1, v1beta1"}},
		{"a CRD that serves nothing", recorded, "old.io/v1 Relic", ObjectNotServed, "",
			[]string{"relics.old.io does not serve version v1 (served: false) and serves no version", "serve a version of relics.old.io (spec.versions[].served) and move them to it"}},
		{"deprecated, no other version served", recorded, "solo.io/v1 Solo", ObjectDeprecated, "",
			[]string{`each request gets the warning "solo.io/v1 Solo is deprecated"`, "its CRD serves no other version: follow its deprecation warning"}},
		{"a misspelt kind of a CRD group", recorded, "example.com/v1 Widgit", ObjectMisspelt, "", []string{"the closest known spelling is example.com/v1 Widget"}},
		// A snapshot that does not record the CRDs' versions: discovery only, as before.
		{"older snapshot: a deprecated version is served", older, "example.com/v1beta1 Widget", ObjectServed, "", nil},
		{"older snapshot: an unserved version is not judged", older, "example.com/v1alpha1 Widget", ObjectNotJudged, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			known := newKnownAPIs(lifecycle.MustLoad(), st, c.cluster)
			av, kind, _ := strings.Cut(c.obj, " ")
			got := judge(replay.ManifestObject{APIVersion: av, Kind: kind, File: "f.yaml", Line: 3, Name: "w"}, "f.yaml", st, known)
			if got.Verdict != c.verdict || got.Replacement != c.replacement {
				t.Fatalf("got %s replacement %q (why %q), want %s %q", got.Verdict, got.Replacement, got.Why, c.verdict, c.replacement)
			}
			if got.Verdict == ObjectServed {
				return
			}
			f := objectFinding([]ObjectRow{got}, st, known)
			text := string(f.Severity) + ": " + f.Message + "\n" + f.Hint + "\n" + strings.Join(f.Evidence, "\n")
			for _, want := range c.says {
				if !strings.Contains(text, want) {
					t.Errorf("the finding does not say %q:\n%s", want, text)
				}
			}
		})
	}
}

// TestCRDsNotRead: a live read whose CRD list failed leaves objects of unknown groups not
// judged, says why in each, and makes the run partial; objects of built-in APIs alone do not.
func TestCRDsNotRead(t *testing.T) {
	st := []stage{{name: "the start", served: gvks("apps/v1 Deployment", "example.com/v1 Widget", "metrics.k8s.io/v1beta1 PodMetrics"), release: lifecycle.Release{Major: 1, Minor: 36}}}
	cluster := snapshot.Cluster{AggregatedGroupVersions: []string{"metrics.k8s.io/v1beta1"},
		ListsRead: &snapshot.ListsRead{APIServices: true, CustomResourceDefinitionsError: "403 Forbidden: cannot list customresourcedefinitions"}}
	for _, c := range []struct {
		name    string
		objs    []string
		partial string
	}{
		{"an add-on object", []string{"apps/v1 Deployment", "cert-manager.io/v1 Certificate"},
			"the cluster's CustomResourceDefinitions were not read (403 Forbidden: cannot list customresourcedefinitions): 1 object(s) of add-on APIs not judged"},
		// Discovery serves it, but the upgrade rehearsed without the CRDs cannot keep it.
		{"an add-on object discovery lists", []string{"example.com/v1 Widget"},
			"the cluster's CustomResourceDefinitions were not read (403 Forbidden: cannot list customresourcedefinitions): 1 object(s) of add-on APIs not judged"},
		{"an aggregated API's object", []string{"metrics.k8s.io/v1beta1 PodMetrics"}, ""},
		{"built-in objects only", []string{"apps/v1 Deployment", "batch/v1 Job", "v1 ConfigMap"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			known := newKnownAPIs(lifecycle.MustLoad(), st, cluster)
			var rows []ObjectRow
			for _, o := range c.objs {
				av, kind, _ := strings.Cut(o, " ")
				rows = append(rows, judge(replay.ManifestObject{APIVersion: av, Kind: kind, File: "f.yaml", Line: 1}, "f.yaml", st, known))
			}
			got, partial := known.crdsUnreadPartial(rows)
			if partial != (c.partial != "") || (partial && got.String() != c.partial) {
				t.Errorf("partial %v %q, want %q", partial, got, c.partial)
			}
			for _, r := range rows {
				if r.Verdict == ObjectNotJudged && !strings.Contains(r.Why, "CustomResourceDefinitions were not read (403") {
					t.Errorf("%s %s: why %q does not say the CRDs were not read", r.APIVersion, r.Kind, r.Why)
				}
			}
		})
	}
}

func TestObjectsSummaryLineCRD(t *testing.T) {
	s := ObjectsSummary{Objects: 3, Files: 1, Counts: []ObjectCount{{ObjectServed, "", 1}, {ObjectDeprecated, "", 1}, {ObjectNotServed, "", 1}}}
	want := "3 object(s) in 1 file(s): 1 served by every stage, 1 deprecated by their CRD, 1 not served by some stage"
	if got := s.Line(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
