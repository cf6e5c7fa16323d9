package e2e

import (
	"context"
	"encoding/json"
	"net"
	"testing"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// checkDiscovery logs and checks what every server's discovery says of group/version:
// the unaggregated /apis (APIGroupList, from the APIService objects) must list it; the
// aggregated v2 /apis, local (profile=nopeer) and peer-aggregated, must list it with
// freshness want ("" = Current; "absent" = not listed).
func checkDiscovery(t *testing.T, ctx context.Context, cp *harness.ControlPlane, title, group, version, want string) {
	t.Helper()
	for _, s := range cp.Servers() {
		if !s.Running() {
			continue
		}
		var list struct {
			Groups []struct {
				Name     string
				Versions []struct{ Version string }
			}
		}
		r, err := s.Get(ctx, "/apis", "Accept", "application/json")
		if err != nil || r.StatusCode != 200 || json.Unmarshal(r.Body, &list) != nil {
			t.Fatalf("%s GET /apis: %v %v", s.Name, r, err)
		}
		listed := false
		for _, g := range list.Groups {
			for _, v := range g.Versions {
				listed = listed || (g.Name == group && v.Version == version)
			}
		}
		if !listed {
			t.Errorf("%s: %s: unaggregated /apis does not list %s/%s", title, s.Name, group, version)
		}
		for _, nopeer := range []bool{true, false} {
			d, err := s.Discovery(ctx, "/apis", nopeer)
			if err != nil {
				t.Fatalf("%s: %v", s.Name, err)
			}
			got := "absent"
			for _, g := range d.Items {
				for _, v := range g.Versions {
					if g.Name == group && v.Version == version {
						got = string(v.Freshness)
						if got == "Current" {
							got = ""
						}
					}
				}
			}
			t.Logf("%s: %s: aggregated /apis (nopeer=%v): %s/%s freshness %q", title, s.Name, nopeer, group, version, got)
			if got != want {
				t.Errorf("%s: %s: aggregated /apis (nopeer=%v) lists %s/%s with freshness %q, want %q", title, s.Name, nopeer, group, version, got, want)
			}
		}
	}
}

// closedPort returns a loopback port on which nothing listens (a moment ago).
func closedPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	return port, l.Close()
}
