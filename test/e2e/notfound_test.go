package e2e

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestNotFoundBody: the 404 body `mvpctl explain -o json` predicts (notFoundBody, from pkg/mvp)
// is, byte for byte, what a real kube-apiserver answers: for a group it does not serve at all,
// the last-resort 404 of its version (text/plain before 1.38); for a version of a group it
// serves (resource.k8s.io/v1beta1 beside resource.k8s.io/v1 on a default 1.37 server, the
// request a 1.38 client of v1beta1 sends), the group's own Status NotFound.
func TestNotFoundBody(t *testing.T) {
	harness.SkipIfUnsupported(t)
	cp, err := harness.NewControlPlane(harness.Config{Servers: []harness.ServerSpec{{Name: "kas-nf", Version: harness.V1_37, DefaultProxyConfig: true}}, Logf: t.Logf})
	if cp != nil {
		defer cp.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := cp.Server("kas-nf")
	snap, _ := mvpctlSnapshot(t, filepath.Join(t.TempDir(), "snap.json"), []int{0, 2}, "--kubeconfig", cp.Kubeconfig)
	for _, tc := range []struct {
		path  string
		shape mvp.NotFoundShape
	}{
		{"/apis/nosuch.example.com/v1/namespaces/default/things", mvp.ShapeText},
		{"/apis/resource.k8s.io/v1beta1/namespaces/default/resourceclaims", mvp.ShapeUnknownResource},
		// Discovery paths (never proxied) answer the same way.
		{"/apis/nosuch.example.com/v1", mvp.ShapeText},
		{"/apis/resource.k8s.io/v1beta1", mvp.ShapeUnknownResource},
	} {
		real, err := srv.Get(ctx, tc.path, "Accept", "application/json")
		if err != nil {
			t.Fatal(err)
		}
		r := runMvpctl(t, "explain", "-o", "json", "--snapshot", snap.Path, "GET", tc.path)
		if r.Exit != 0 && r.Exit != 2 {
			t.Fatalf("%s", r)
		}
		var e struct {
			Servers []struct {
				Server       string            `json:"server"`
				NotFoundBody *mvp.NotFoundBody `json:"notFoundBody"`
			} `json:"servers"`
		}
		if err := json.Unmarshal(r.Stdout, &e); err != nil || len(e.Servers) != 1 || e.Servers[0].NotFoundBody == nil {
			t.Fatalf("%s: explain -o json has no notFoundBody (%v): %.400s", tc.path, err, r.Stdout)
		}
		got := e.Servers[0].NotFoundBody
		t.Logf("%s: real %d %q %q; predicted %s %q %q", tc.path, real.StatusCode, real.ContentType, real.Body, got.Shape, got.ContentType, got.Body)
		if real.StatusCode != 404 || got.Shape != tc.shape || got.ContentType != real.ContentType || got.Body != string(real.Body) {
			t.Errorf("%s: predicted %s %q %q, the server answered %d %q %q", tc.path, got.Shape, got.ContentType, got.Body, real.StatusCode, real.ContentType, real.Body)
		}
	}
}
