package route

import (
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestNotFoundBody: a 404 from the server's own chain carries the body the client reads — the
// group's Status when the server serves the group (a 1.38 client of the removed
// resource.k8s.io/v1beta1 on a server serving resource.k8s.io/v1 reads this one, as on 1.37),
// else the last-resort 404 of its version: text before 1.38, a JSON Status from 1.38
// (k8s.io/apiserver v0.38.0-alpha.2 pkg/util/notfoundhandler/not_found_handler.go:64-77). A 1.38
// server's explanation says its rules are provisional.
func TestNotFoundBody(t *testing.T) {
	for _, tc := range []struct {
		version, path string
		want          mvp.NotFoundBody
	}{
		{"v1.37.2", "/apis/nosuch.example.com/v1/things", mvp.LastResortNotFound(snapshot.Version{Major: 1, Minor: 37})},
		{"v1.38.0", "/apis/nosuch.example.com/v1/things", mvp.LastResortNotFound(snapshot.Version{Major: 1, Minor: 38})},
		{"v1.37.2", "/apis/resource.k8s.io/v1beta1/namespaces/ml/resourceclaims", mvp.UnknownResourceNotFound},
		{"v1.38.0", "/apis/resource.k8s.io/v1beta1/namespaces/ml/resourceclaims", mvp.UnknownResourceNotFound},
		{"v1.38.0", "/apis/nosuch.example.com/v1", mvp.LastResortNotFound(snapshot.Version{Major: 1, Minor: 38})},
		{"v1.38.0", "/apis/resource.k8s.io/v1beta1", mvp.UnknownResourceNotFound},
	} {
		s := snap(server("a", tc.version, "v1/pods", "resource.k8s.io/v1/resourceclaims"))
		d, err := NewRouter(s).Decide("a", parsed(t, tc.path))
		if err != nil {
			t.Fatal(err)
		}
		if d.Outcome != mvp.NotFound || d.NotFoundBody == nil || *d.NotFoundBody != tc.want {
			t.Errorf("%s %s: %s %+v, want not-found with %+v", tc.version, tc.path, d.Outcome, d.NotFoundBody, tc.want)
		}
		var said []string
		for _, st := range d.Plain.Steps {
			said = append(said, st.Text)
		}
		provisional := strings.Contains(strings.Join(said, "\n"), "rules provisional")
		if want := tc.version == "v1.38.0"; provisional != want || d.Inferred != want {
			t.Errorf("%s: says provisional %t, inferred %t; want %t", tc.version, provisional, d.Inferred, want)
		}
	}
	if a, b := mvp.LastResortNotFound(snapshot.Version{Major: 1, Minor: 37}), mvp.LastResortNotFound(snapshot.Version{Major: 1, Minor: 38}); a.Shape != mvp.ShapeText || b.Shape != mvp.ShapeStatus {
		t.Errorf("shapes %s, %s", a.Shape, b.Shape)
	}
}
