package route

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// classOf is ParseRequest's answer reduced to a RequestClass, as strings.
func classOf(method, target string) (kind RequestKind, gvr, sub string) {
	r, err := ParseRequest(method, target)
	switch {
	case err != nil:
		return KindUnparsable, "", ""
	case !r.Info.IsResourceRequest:
		return KindNonResource, "", ""
	}
	return KindResource, r.Info.APIGroup + "|" + r.Info.APIVersion + "|" + r.Info.Resource, r.Info.Subresource
}

// checkClassify fails when ClassifyRequest answers for target and its answer is not
// ParseRequest's; it reports whether ClassifyRequest answered.
func checkClassify(t *testing.T, method, target string) bool {
	t.Helper()
	c, ok := ClassifyRequest(method, []byte(target))
	if !ok {
		return false
	}
	kind, gvr, sub := classOf(method, target)
	gotGVR, gotSub := "", ""
	if c.Kind == KindResource {
		gotGVR, gotSub = string(c.Group)+"|"+string(c.Version)+"|"+string(c.Resource), string(c.Subresource)
	}
	if c.Kind != kind || gotGVR != gvr || gotSub != sub {
		t.Errorf("ClassifyRequest(%q, %q) = kind %d %q %q; ParseRequest says kind %d %q %q", method, target, c.Kind, gotGVR, gotSub, kind, gvr, sub)
	}
	return true
}

var classifySeeds = []string{
	"/api/v1/pods", "/api/v1/namespaces/default/pods/p/status", "/api/v1/namespaces/ns/pods?watch=true&fieldSelector=metadata.name%3Dx",
	"/apis/apps/v1/namespaces/ns/deployments/d/scale", "/apis/apps/v1/deployments", "/apis/apps/v1", "/apis/apps", "/apis", "/api", "/api/v1",
	"/api/v1/namespaces", "/api/v1/namespaces/ns", "/api/v1/namespaces/ns/status", "/api/v1/namespaces/ns/finalize", "/api/v1/namespaces/ns/pods",
	"/api/v1/watch/namespaces/ns/pods/p", "/api/v1/watch", "/api/v1/proxy", "/api/v1/proxy/nodes/n/x/y", "/api/v1/namespaces/ns/pods/p/proxy/a/b",
	"/apis/x/y/watch", "/apis/x/y/proxy/a", "/apis/g/v/watch/namespaces/ns/r/n/s/t", "/api/v1/pods/", "/api/v1/pods//", "/api/v1//pods",
	"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1?timeout=10s", "/api/v1/pods?", "/api/v1/pods?a#b", "/api/v1/pods#x",
	"/apix/v1/pods", "/apis2/v1/pods", "/healthz", "/openapi/v2", "/version?timeout=32s", "//api/v1/pods", "/api/v1/p%6fds", "/api/v1/pods ",
	" /api/v1/pods", "/api/v1/pods\t", "/api/v1/pods?x=\x7f", "/api/v1/pödz", "/api/v1/pods?q=ö", "/api/v1/pods?q=%zz", "/api/v1/pods\u00a0",
	"/api/v1/namespaces/a/b/c/d/e/f/g/h/i/j", "/apis/a/b/c/d/e/f", "/api/v1/namespaces//pods", "/api/v1/pods;x", "/api/v1/pods?x=1?y=2",
}

func TestClassifyRequest(t *testing.T) {
	answered := 0
	for _, method := range []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "get", "BREW"} {
		for _, target := range classifySeeds {
			if checkClassify(t, method, target) {
				answered++
			}
		}
	}
	// The shapes of real logs must take the fast path; the unusual ones must not.
	for _, target := range []string{"/api/v1/pods", "/apis/apps/v1/namespaces/ns/deployments/d/scale", "/api/v1/watch", "/api/v1/pods?watch=1&q=%zz"} {
		if _, ok := ClassifyRequest("GET", []byte(target)); !ok {
			t.Errorf("ClassifyRequest declined %q", target)
		}
	}
	for _, target := range []string{"/api/v1/p%6fds", "/healthz", "/api/v1//pods", "/api/v1/pods#x", " /api/v1/pods", "/api/v1/pods\u00a0", "//api/v1/pods"} {
		if _, ok := ClassifyRequest("GET", []byte(target)); ok {
			t.Errorf("ClassifyRequest answered for %q; want it to leave it to ParseRequest", target)
		}
	}
	if _, ok := ClassifyRequest("get", []byte("/api/v1/pods")); ok {
		t.Errorf("ClassifyRequest answered for a lowercase method")
	}
	if answered < len(classifySeeds) {
		t.Errorf("ClassifyRequest answered only %d cases", answered)
	}
}

func TestClassifyRequestAllocatesNothing(t *testing.T) {
	target := []byte("/apis/apps/v1/namespaces/ns/deployments/d/scale?timeout=10s")
	if n := testing.AllocsPerRun(100, func() { ClassifyRequest("PUT", target) }); n != 0 {
		t.Errorf("ClassifyRequest allocates %v times", n)
	}
}

// FuzzClassifyRequest is the proof that ClassifyRequest is ParseRequest wherever it answers.
func FuzzClassifyRequest(f *testing.F) {
	for _, s := range classifySeeds {
		f.Add("GET", s)
	}
	f.Add("DELETE", "/apis/g/v/namespaces/n/r")
	f.Fuzz(func(t *testing.T, method, target string) {
		checkClassify(t, method, target)
		// Paths made of the segments the factory treats specially find its corners faster.
		if strings.HasPrefix(target, "/api") {
			checkClassify(t, method, strings.ReplaceAll(target, "x", "/namespaces/"))
			checkClassify(t, method, strings.ReplaceAll(target, "y", "/watch/"))
			checkClassify(t, method, strings.ReplaceAll(target, "z", "/proxy/"))
		}
	})
}

func BenchmarkClassifyRequest(b *testing.B) {
	target := []byte("/apis/apps/v1/namespaces/ns-1/deployments/d-12345/scale?timeout=10s")
	for b.Loop() {
		ClassifyRequest("PUT", target)
	}
}

func BenchmarkParseRequestSamePath(b *testing.B) {
	target := "/apis/apps/v1/namespaces/ns-1/deployments/d-12345/scale?timeout=10s"
	for b.Loop() {
		_, _ = ParseRequest("PUT", target)
	}
}

// TestClassifyRequestMethods: ClassifyRequest's own list of methods is ParseRequest's.
func TestClassifyRequestMethods(t *testing.T) {
	for _, m := range append(methods.List(), "TRACE", "BREW", "get", "Get", "") {
		_, ok := ClassifyRequest(m, []byte("/api/v1/pods"))
		if want := methods.Has(m); ok != want {
			t.Errorf("ClassifyRequest(%q, /api/v1/pods) answered %t; ParseRequest accepts the method: %t", m, ok, want)
		}
	}
}

// FuzzListRequest: a table's list request, built where ClassifyRequest vouches for the path,
// is the request ParseRequest makes of the same path, for any group, version and resource.
func FuzzListRequest(f *testing.F) {
	for _, g := range [][3]string{{"", "v1", "pods"}, {"batch", "v1", "jobs"}, {"", "v1", "namespaces"},
		{"apps", "v1", "namespaces"}, {"g", "v1", "watch"}, {"g", "v1", "proxy"}, {"a%2Fb", "v1", "r"},
		{"g", "v1", "r?x=1"}, {"g", "v1", "r#f"}, {"", "v1", ""}, {"g", "", "r"}, {"api", "apis", "api"},
		{"g.example.com", "v1beta1", "Foo"}, {"g", "v1", "r/status"}, {"", "namespaces", "x"}, {"g", "v1", "r "}} {
		f.Add(g[0], g[1], g[2])
	}
	f.Fuzz(func(t *testing.T, group, version, resource string) {
		g := snapshot.GVR{Group: group, Version: version, Resource: resource}
		got, gotErr := listRequest(g)
		want, wantErr := ParseRequest("GET", ListPath(g))
		if (gotErr != nil) != (wantErr != nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Fatalf("%#v: error %v, ParseRequest's %v", g, gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%#v:\n%#v\nParseRequest:\n%#v", g, got, want)
		}
	})
}
