package discover

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
	pt "github.com/mvpctl/mvpctl/test/fake/proxycluster"
)

// TestLeasesThroughKnownServers: when the kubeconfig's server does not answer (it restarts),
// the identity leases are listed through an apiserver known from the last read, said in one
// warning; the others stay observed and the down one is recorded unreachable. Without a
// known server, the read fails as before (ErrLeasesNotListed).
func TestLeasesThroughKnownServers(t *testing.T) {
	a := &pt.Server{Name: "kas-a", Version: "v1.36.3", Core: dt.CoreGroup(), Groups: pt.Groups136(true)}
	b := &pt.Server{Name: "kas-b", Version: "v1.36.3", Core: dt.CoreGroup(), Groups: pt.Groups136(true)}
	c := pt.Start(t, a, b)
	kubeconfigServer := a.URL()
	a.Kill()
	for _, tt := range []struct {
		name  string
		known []string
	}{
		{"no server known", nil},
		{"the other server known", []string{kubeconfigServer, b.URL()}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var warnings []string
			snap, err := Discover(context.Background(), Options{Config: dt.ClientConfig(c.PKI, kubeconfigServer, pt.Token), RequireLeases: true,
				KnownServers: tt.known, Timeout: 5 * time.Second, Warn: func(s string) { warnings = append(warnings, s) }})
			if tt.known == nil {
				if !errors.Is(err, ErrLeasesNotListed) {
					t.Errorf("err %v, want ErrLeasesNotListed", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			through := 0
			for _, w := range warnings {
				if strings.Contains(w, "the kubeconfig's server "+kubeconfigServer+" does not answer the identity-lease list: listed through "+b.URL()) {
					through++
				}
			}
			if through != 1 {
				t.Errorf("warnings %q: want one saying the leases were listed through %s", warnings, b.URL())
			}
			reachable := map[string]bool{}
			for _, s := range snap.Servers {
				if s.IdentityLease != nil {
					reachable[s.IdentityLease.Name] = s.Reachable
				}
			}
			if len(reachable) != 2 || reachable[a.ID] || !reachable[b.ID] {
				t.Errorf("servers by lease → reachable: %v; want %s down, %s up", reachable, a.ID, b.ID)
			}
		})
	}
}
