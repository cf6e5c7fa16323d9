// Package profiles holds small hand-made version profiles for unit tests: the profile loading
// of pkg/profile and the step logic of pkg/simulate. The embedded profiles come from real
// apiservers; tests of real data use those.
package profiles

import (
	"fmt"
	"strings"
	"testing/fstest"
)

// Fixture is four hand-made profiles, 1.34 to 1.37, each serving a handful of GVRs; 1.36 and
// 1.37 with an "api-all" server that serves their alpha and beta group/versions too.
func Fixture() fstest.MapFS {
	return fstest.MapFS{
		"profiles/v1.34.4.yaml": File("v1.34.4", "v1/pods", "apps/v1/deployments", "batch/v1/jobs", "old.k8s.io/v1beta1/gadgets"),
		"profiles/v1.35.4.yaml": File("v1.35.4", "v1/pods", "apps/v1/deployments", "batch/v1/jobs", "old.k8s.io/v1beta1/gadgets"),
		"profiles/v1.36.3.yaml": WithFull(File("v1.36.3", "v1/pods", "apps/v1/deployments", "batch/v1/jobs", "old.k8s.io/v1beta1/gadgets"),
			"v1/pods", "apps/v1/deployments", "batch/v1/jobs", "old.k8s.io/v1beta1/gadgets", "old.k8s.io/v1alpha1/relics"),
		"profiles/v1.37.1.yaml": WithFull(File("v1.37.1", "v1/pods", "apps/v1/deployments", "batch/v1/jobs", "new.k8s.io/v1/widgets"),
			"v1/pods", "apps/v1/deployments", "batch/v1/jobs", "new.k8s.io/v1/widgets", "new.k8s.io/v1alpha1/ideas"),
	}
}

// File is a profile file of one version whose "default" server serves gvrs ("v1/pods",
// "apps/v1/deployments").
func File(version string, gvrs ...string) *fstest.MapFile {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: mvpctl.io/v1alpha1\nkind: Snapshot\ntakenAt: \"2026-11-01T00:00:00Z\"\nsource: test fixture\nservers:\n- name: default\n  version: %s\n  reachable: true\n  resources:\n", version)
	writeResources(&b, gvrs)
	return &fstest.MapFile{Data: []byte(b.String())}
}

// WithFull adds the profile's full set (the "api-all" server) to a profile file.
func WithFull(f *fstest.MapFile, gvrs ...string) *fstest.MapFile {
	var b strings.Builder
	b.Write(f.Data)
	version := strings.Fields(strings.SplitN(string(f.Data), "version: ", 2)[1])[0]
	fmt.Fprintf(&b, "- name: api-all\n  version: %s\n  reachable: true\n  resources:\n", version)
	writeResources(&b, gvrs)
	return &fstest.MapFile{Data: []byte(b.String())}
}

// writeResources writes one resources: entry a GVR.
func writeResources(b *strings.Builder, gvrs []string) {
	for _, g := range gvrs {
		parts := strings.Split(g, "/")
		if len(parts) == 2 {
			parts = append([]string{""}, parts...)
		}
		fmt.Fprintf(b, "  - {group: %q, version: %s, resource: %s, namespaced: true, verbs: [get, list], source: builtin}\n", parts[0], parts[1], parts[2])
	}
}
