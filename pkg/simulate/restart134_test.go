package simulate

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// A 1.34 server restarted after its peers dropped it keeps its lease's holder: no lease event.
// A 1.34 peer, its retries over, keeps it dropped (404) until the next lease event; a 1.35
// peer, still retrying the failed sync, learns it again (TestRestart134StaysDropped and
// TestRestart134RelearnedByRetry, e2e, on real servers with the same steps).
func TestRestart134AfterDrop(t *testing.T) {
	for _, tt := range []struct {
		name     string
		versions []string // a, then the others: a is the only server of batch/v1
		observer string
		steps    []Step
		want     []mvp.Outcome // the observer's answer for jobs after each step but the first
	}{
		{"a 1.34 peer", []string{"1.34", "1.34", "1.35"}, "b",
			[]Step{{Action: ActionCrash, Server: "a"}, {Action: ActionStop, Server: "c"}, {Action: ActionStart, Server: "a"}, {Action: ActionStart, Server: "c"}},
			[]mvp.Outcome{mvp.NotFound, mvp.NotFound, mvp.Proxied}},
		{"a 1.35 peer", []string{"1.34", "1.35", "1.35"}, "b",
			[]Step{{Action: ActionCrash, Server: "a"}, {Action: ActionStop, Server: "c"}, {Action: ActionStart, Server: "a"}},
			[]mvp.Outcome{mvp.NotFound, mvp.Proxied}},
	} {
		var servers []ServerVersion
		for i, v := range tt.versions {
			servers = append(servers, ServerVersion{Name: string(rune('a' + i)), Version: v, Proxy: "configured"})
		}
		s, err := FromProfiles(servers, at)
		if err != nil {
			t.Fatal(err)
		}
		for _, sv := range servers[1:] {
			srv := s.Find(sv.Name)
			var kept []snapshot.Resource
			for _, r := range srv.Resources {
				if r.Group != "batch" {
					kept = append(kept, r)
				}
			}
			srv.Resources = kept
		}
		for i, step := range tt.steps {
			if s, err = Apply(s, step); err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				continue
			}
			if got := decide(t, s, tt.observer, "/apis/batch/v1/jobs"); got.Outcome != tt.want[i-1] {
				t.Errorf("%s: after %s, %s for jobs: %s, want %s (%s)", tt.name, step, tt.observer, got.Outcome, tt.want[i-1], got.Reason)
			}
		}
	}
}
