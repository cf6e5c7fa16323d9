package route

import (
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// An explanation on a 1.34 server with the filter warns, whatever the request, that the next
// identity lease event takes it down while a dead peer's endpoint key may still resolve
// (docs/behaviour.md §11.2); a 1.36 server says nothing of it.
func TestHazardRebuildExit(t *testing.T) {
	dead := server("c", "v1.36.3", "batch/v1/jobs")
	w := mvp.EndpointWindowAfter(takenAt.Add(-4 * time.Second))
	dead.Reachable, dead.Error, dead.PeerProxy.EndpointWindow = false, "connection refused", &w
	s := snap(server("a", "v1.34.4", "apps/v1/deployments"), server("b", "v1.36.3", "apps/v1/deployments"), dead)
	req, err := ParseRequest("GET", "/apis/apps/v1/deployments")
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewRouter(s).Explain(req, "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, d := range e.Servers {
		got[d.Server] = d.Hazards
	}
	if len(got["a"]) != 1 || !strings.Contains(got["a"][0], "a exits") || !strings.Contains(got["a"][0], "endpoint key of c") || len(got["b"]) != 0 {
		t.Errorf("hazards: %q", got)
	}
	// Once the key has expired the next rebuild drops c instead: no hazard.
	s.Servers[2].PeerProxy.EndpointWindow, s.Servers[2].PeerProxy.EndpointResolvable = nil, snapshot.Ptr(false)
	if e, _ := NewRouter(s).Explain(req, "a"); len(e.Servers[0].Hazards) != 0 {
		t.Errorf("after the window: %q", e.Servers[0].Hazards)
	}
}
