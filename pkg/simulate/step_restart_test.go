package simulate

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestRestartStep: a restart at the same version is a lease event on 1.35+ (a new holder:
// every peer rebuilds its peer-discovery cache and drops a crashed server, whose 503 becomes a
// 404) and none before 1.35 (the same holder: the crashed server's 503 stays). The restarted
// server runs again either way, at its version.
func TestRestartStep(t *testing.T) {
	for _, tt := range []struct {
		version     string
		newHolder   bool
		afterwardsB mvp.Outcome // b's answer for jobs, which only the crashed c serves
	}{
		{"1.36", true, mvp.NotFound},
		{"1.35", true, mvp.NotFound},
		{"1.34", false, mvp.Unavailable},
	} {
		var servers []ServerVersion
		for _, n := range []string{"a", "b", "c"} {
			servers = append(servers, ServerVersion{Name: n, Version: tt.version, Proxy: "configured"})
		}
		s, err := FromProfiles(servers, at)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"a", "b"} {
			srv := s.Find(name)
			srv.Resources = gvrsWithout(srv.Resources, "batch")
		}
		if s, err = Apply(s, Step{Action: ActionCrash, Server: "c"}); err != nil {
			t.Fatal(err)
		}
		if got := decide(t, s, "b", "/apis/batch/v1/jobs"); got.Outcome != mvp.Unavailable {
			t.Fatalf("%s: after the crash, b for jobs: %s, want %s", tt.version, got.Outcome, mvp.Unavailable)
		}
		before := *s.Find("a")
		step, err := ParseStep("restart:a")
		if err != nil {
			t.Fatal(err)
		}
		next, done, err := applyStep(s, step)
		if err != nil {
			t.Fatal(err)
		}
		a := next.Find("a")
		if got := a.IdentityLease.HolderIdentity != before.IdentityLease.HolderIdentity; got != tt.newHolder || !a.Reachable || a.Version != before.Version {
			t.Errorf("%s: restarted a: new holder %v (want %v), reachable %v, version %s (was %s)", tt.version, got, tt.newHolder, a.Reachable, a.Version, before.Version)
		}
		if len(done.notes) != 0 || len(done.losses) != 0 || done.assumed != nil {
			t.Errorf("%s: a restart says nothing beyond the routing: %+v", tt.version, done)
		}
		if got := decide(t, next, "b", "/apis/batch/v1/jobs"); got.Outcome != tt.afterwardsB {
			t.Errorf("%s: after restart a, b for jobs: %s, want %s (%s)", tt.version, got.Outcome, tt.afterwardsB, got.Reason)
		}
	}
}

func gvrsWithout(rs []snapshot.Resource, group string) []snapshot.Resource {
	var kept []snapshot.Resource
	for _, r := range rs {
		if r.Group != group {
			kept = append(kept, r)
		}
	}
	return kept
}
