package snapshot

import (
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// TestResolveResourceNames: kubectl's other names of a resource — short names and singulars
// from the recorded discovery documents, kinds from the resource lists — in every form, and
// in a --resource filter.
func TestResolveResourceNames(t *testing.T) {
	doc := func(group, version string, rs ...apidiscoveryv2.APIResourceDiscovery) *DiscoveryDocument {
		return &DiscoveryDocument{Items: []apidiscoveryv2.APIGroupDiscovery{{
			ObjectMeta: metav1.ObjectMeta{Name: group},
			Versions:   []apidiscoveryv2.APIVersionDiscovery{{Version: version, Resources: rs}},
		}}}
	}
	res := func(resource, singular string, short ...string) apidiscoveryv2.APIResourceDiscovery {
		return apidiscoveryv2.APIResourceDiscovery{Resource: resource, SingularResource: singular, ShortNames: short}
	}
	s := New()
	s.Servers = []Server{{Name: "a", Reachable: true,
		Resources: []Resource{
			{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true},
			{Group: "batch", Version: "v1", Resource: "cronjobs", Kind: "CronJob", Namespaced: true},
			{Group: "batch", Version: "v1", Resource: "jobs", Kind: "Job", Namespaced: true},
		},
		CoreAPI: doc("", "v1", res("pods", "pod", "po")),
		APIs:    doc("batch", "v1", res("cronjobs", "cronjob", "cj"), res("jobs", "job")),
	}}
	for arg, want := range map[string]string{
		"cj": "batch/v1/cronjobs", "CJ": "batch/v1/cronjobs", "cj.batch": "batch/v1/cronjobs", "cj.v1.batch": "batch/v1/cronjobs",
		"cronjob": "batch/v1/cronjobs", "CronJob": "batch/v1/cronjobs", "Job": "batch/v1/jobs", "job.batch": "batch/v1/jobs",
		"po": "v1/pods", "pod": "v1/pods", "Pod": "v1/pods", "pods": "v1/pods",
	} {
		got, err := s.ResolveResource(arg, GVRFilter{})
		if err != nil || got.GVR.String() != want {
			t.Errorf("ResolveResource(%q) = %s, %v; want %s", arg, got.GVR, err, want)
		}
		if got, err := s.ResolveResource("", GVRFilter{Resources: []string{arg}}); err != nil || got.GVR.String() != want {
			t.Errorf("ResolveResource with --resource %s = %s, %v; want %s", arg, got.GVR, err, want)
		}
	}
	for _, arg := range []string{"cj.apps", "po.batch", "cjs"} {
		if got, err := s.ResolveResource(arg, GVRFilter{}); err == nil {
			t.Errorf("ResolveResource(%q) = %s; want no match", arg, got.GVR)
		}
	}
	f := GVRFilter{Resources: []string{"cj"}, Names: s.ResourceNames()}
	if !f.Match(GVR{Group: "batch", Version: "v1beta1", Resource: "cronjobs"}, "") || f.Match(GVR{Group: "batch", Version: "v1", Resource: "jobs"}, "Job") {
		t.Error("--resource cj selects the cronjobs of every version of batch, and nothing else")
	}

	// Without a recorded /api document the core group's short names are unknown: said so.
	s.Servers[0].CoreAPI = nil
	if _, err := s.ResolveResource("po", GVRFilter{}); err == nil || !strings.Contains(err.Error(), "records no /api discovery document") {
		t.Errorf("po without /api recorded: %v; want the missing document named", err)
	}
}
