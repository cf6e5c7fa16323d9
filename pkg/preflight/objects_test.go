package preflight

import (
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/lifecycle"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func gvks(apiVersionKinds ...string) map[lifecycle.GVK]bool {
	m := map[lifecycle.GVK]bool{}
	for _, s := range apiVersionKinds {
		av, kind, _ := strings.Cut(s, " ")
		g, v := lifecycle.SplitAPIVersion(av)
		m[lifecycle.GVK{Group: g, Version: v, Kind: kind}] = true
	}
	return m
}

func TestJudge(t *testing.T) {
	common := []string{"apps/v1 Deployment", "batch/v1 CronJob", "batch/v1 Job", "v1 ConfigMap", "networking.k8s.io/v1 Ingress", "resource.k8s.io/v1beta1 DeviceClass"}
	start := stage{name: "the start", served: gvks(append(common, "storage.k8s.io/v1beta1 VolumeAttributesClass", "example.com/v1 Widget")...), release: lifecycle.Release{Major: 1, Minor: 36}}
	target := stage{name: "the target", served: gvks(append(common, "example.com/v1 Widget")...), release: lifecycle.Release{Major: 1, Minor: 37}}
	st := []stage{start, target}
	cluster := snapshot.Cluster{CustomResourceGroupVersions: []string{"example.com/v1", "other.example.com/v1"}}
	known := newKnownAPIs(lifecycle.MustLoad(), st, cluster)
	for _, c := range []struct {
		obj                               string
		verdict                           ObjectVerdict
		removed, replacement, closest, by string
	}{
		{"extensions/v1beta1 Ingress", ObjectRemoved, "1.22", "networking.k8s.io/v1 Ingress", "", "the start"},
		{"storage.k8s.io/v1beta1 VolumeAttributesClass", ObjectRemoved, "1.37", "storage.k8s.io/v1 VolumeAttributesClass", "", "the target"},
		{"apps/v1 Deployment", ObjectServed, "", "", "", ""},
		{"resource.k8s.io/v1beta1 DeviceClass", ObjectDeprecated, "1.38", "", "", ""},
		{"example.com/v1 Widget", ObjectServed, "", "", "", ""},
		{"apps/v1beat1 Deployment", ObjectMisspelt, "", "", "apps/v1beta1 Deployment", ""},
		{"batch/v1 Cronjob", ObjectMisspelt, "", "", "batch/v1 CronJob", ""},
		{"app/v1 Deployment", ObjectMisspelt, "", "", "apps/v1 Deployment", ""},
		{"batch/v1 Widget", ObjectUnknownKind, "", "", "", ""},
		{"apps/v9 Deployment", ObjectNotServed, "", "", "", "the start"},
		{"cert-manager.io/v1 Certificate", ObjectNotJudged, "", "", "", ""},
		{"other.example.com/v1 Gadget", ObjectNotJudged, "", "", "", ""},
		{"resource.k8s.io/v1alpha3 DeviceClass", ObjectRemoved, "1.37", "resource.k8s.io/v1beta1 DeviceClass", "", "the start"},
	} {
		av, kind, _ := strings.Cut(c.obj, " ")
		got := judge(replay.ManifestObject{APIVersion: av, Kind: kind, File: "f.yaml", Line: 1}, "f.yaml", st, known)
		if got.Verdict != c.verdict || got.Removed != c.removed || got.Replacement != c.replacement || got.Closest != c.closest || got.NotServedBy != c.by {
			t.Errorf("%s: got %s removed %q replacement %q closest %q not served by %q (why %q), want %s %q %q %q %q",
				c.obj, got.Verdict, got.Removed, got.Replacement, got.Closest, got.NotServedBy, got.Why, c.verdict, c.removed, c.replacement, c.closest, c.by)
		}
		if (got.Verdict == ObjectNotJudged) != (got.Why != "") && got.Verdict != ObjectNotServed && got.Verdict != ObjectMisspelt {
			t.Errorf("%s: why %q", c.obj, got.Why)
		}
	}
}

func TestClosest(t *testing.T) {
	for _, c := range []struct {
		s    string
		cand []string
		want string
	}{
		{"v1beat1", []string{"v1", "v1beta1", "v1beta2"}, "v1beta1"},
		{"Cronjob", []string{"CronJob", "Job"}, "CronJob"},
		{"v2", []string{"v1"}, ""}, // one edit, but half of a short name: not a spelling of it
		{"Ingres", []string{"Ingress", "IngressClass"}, "Ingress"},
		{"Service", []string{"Secret"}, ""},
	} {
		if got := closest(c.s, c.cand); got != c.want {
			t.Errorf("closest(%q, %v) = %q, want %q", c.s, c.cand, got, c.want)
		}
	}
}

func TestObjectsSummaryLine(t *testing.T) {
	s := ObjectsSummary{Objects: 11, Files: 4, Skipped: 1, SkippedFiles: []string{"d/README.md"}, Counts: []ObjectCount{{ObjectServed, "", 7}, {ObjectRemoved, "1.22", 2}, {ObjectDeprecated, "1.33", 1}, {ObjectUnknownKind, "", 1}}}
	want := "11 object(s) in 4 file(s): 7 served by every stage, 2 removed in 1.22, 1 deprecated in 1.33, 1 of an unknown kind; 1 file(s) skipped (not .yaml, .yml or .json: d/README.md)"
	if got := s.Line(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
