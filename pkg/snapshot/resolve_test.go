package snapshot

import (
	"strings"
	"testing"
)

// TestResolveResource: kubectl's resource forms against what the reachable servers serve.
func TestResolveResource(t *testing.T) {
	r := func(group, version, resource, kind string, namespaced bool) Resource {
		return Resource{Group: group, Version: version, Resource: resource, Kind: kind, Namespaced: namespaced}
	}
	s := New()
	s.Servers = []Server{
		{Name: "a", Reachable: true, Resources: []Resource{r("", "v1", "events", "Event", true), r("events.k8s.io", "v1", "events", "Event", true),
			r("a.example.com", "v1", "widgets", "Widget", true), r("b.example.com", "v1", "widgets", "Widget", false),
			r("resource.k8s.io", "v1beta1", "resourceclaims", "ResourceClaim", true), r("resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", true)},
			PeerAggregated: []Resource{r("resource.k8s.io", "v1beta2", "resourceclaims", "ResourceClaim", true)}},
		{Name: "down", Resources: []Resource{r("gone.example.com", "v1", "things", "Thing", true)}},
	}
	for _, tc := range []struct {
		arg     string
		f       GVRFilter
		want    string
		note    string
		wantErr string
	}{
		{arg: "events", want: "v1/events"}, // the core group first, as kubectl
		{arg: "events.events.k8s.io", want: "events.k8s.io/v1/events"},
		{arg: "events.v1.events.k8s.io", want: "events.k8s.io/v1/events"},
		{arg: "widgets", wantErr: `"widgets" names resources of 2 groups: widgets.a.example.com, widgets.b.example.com; name one`},
		{arg: "widgets", f: GVRFilter{Groups: []string{"b.example.com"}}, want: "b.example.com/v1/widgets"},
		{arg: "resourceclaims", want: "resource.k8s.io/v1/resourceclaims", note: "the newest of the versions served (v1, v1beta2, v1beta1)"},
		{arg: "resourceclaims.v1beta2.resource.k8s.io", want: "resource.k8s.io/v1beta2/resourceclaims"},
		{arg: "", f: GVRFilter{Resources: []string{"ResourceClaim"}}, want: "resource.k8s.io/v1/resourceclaims", note: "newest"},
		{arg: "things", wantErr: `no reachable server serves "things"`}, // only an unreachable server has it
		{arg: "gone.example.com/v1/things", want: "gone.example.com/v1/things"},
		{arg: "a/b/c/d", wantErr: "want GROUP/VERSION/RESOURCE"},
		{arg: "v1/events", f: GVRFilter{Groups: []string{"apps"}}, wantErr: "v1/events does not match group apps"},
	} {
		got, err := s.ResolveResource(tc.arg, tc.f)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q %s: error %v, want %q", tc.arg, tc.f, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%q %s: %v", tc.arg, tc.f, err)
		case got.GVR.String() != tc.want || !strings.Contains(got.Note, tc.note) || (tc.note == "") != (got.Note == ""):
			t.Errorf("%q %s: %s (note %q), want %s (note %q)", tc.arg, tc.f, got.GVR, got.Note, tc.want, tc.note)
		}
	}
	if got, _ := s.ResolveResource("gone.example.com/v1/things", GVRFilter{}); got.Known {
		t.Error("a GVR no reachable server lists is not known")
	}
	if got, _ := s.ResolveResource("b.example.com/v1/widgets", GVRFilter{}); !got.Known || got.Namespaced {
		t.Errorf("b.example.com widgets: %+v", got)
	}
}
