package proxycluster

import (
	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Cluster is a control plane of fake servers sharing leases.
type Cluster struct {
	PKI     *dt.PKI
	Servers []*Server
	t       testing.TB
	shared  *dt.Cluster
	aggregatorState
}

// Start serves every server until the test ends.
func Start(t testing.TB, servers ...*Server) *Cluster {
	t.Helper()
	c := &Cluster{PKI: dt.NewPKI(t), Servers: servers, t: t, shared: &dt.Cluster{CRDsJSON: dt.CRDsJSONFixture, APIServicesJSON: dt.APIServicesJSONFixture}}
	for _, s := range servers {
		s.c = c
		s.ID = mvp.ServerID(s.Name)
		s.rerouted, s.errors = map[string]float64{}, map[string]float64{}
		hooks := dt.Hooks136
		if s.NoFilter {
			hooks = hooks[:1] // the endpoint reconciler only
		}
		if s.GateOff {
			hooks = nil
		}
		s.Fake = (&dt.Server{Cluster: c.shared, GitVersion: s.Version, Mode: dt.ModeNoPeer, Core: s.Core, Groups: s.Groups,
			Hooks: hooks, Token: s.token()}).Start(t, c.PKI)
		s.fallback = s.Fake.HTTP.Config.Handler
		s.HTTP = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
		s.HTTP.Config.ErrorLog = log.New(io.Discard, "", 0)
		s.HTTP.TLS = s.Fake.HTTP.TLS
		s.HTTP.StartTLS()
		t.Cleanup(s.HTTP.Close)
		s.Fake.Advertise = s.Addr()
	}
	c.refreshLeases()
	return c
}

func (c *Cluster) refreshLeases() {
	var leases []coordinationv1.Lease
	for _, s := range c.Servers {
		addr := s.Addr()
		if s.GateOff {
			addr = ""
		}
		renew := time.Now()
		s.mu.Lock()
		if s.gone {
			renew = renew.Add(-time.Hour)
		}
		s.mu.Unlock()
		leases = append(leases, dt.IdentityLease(s.ID, s.Name, addr, renew))
	}
	c.shared.Leases = leases
}

// peerAggregated is s's default /apis (1.35+ with the proxy): its own groups merged with those
// of its peers with the gate on — versions and resources appended where s lacks them.
func (c *Cluster) peerAggregated(s *Server) []apidiscoveryv2.APIGroupDiscovery {
	var out []apidiscoveryv2.APIGroupDiscovery
	idx := map[string]int{}
	add := func(g apidiscoveryv2.APIGroupDiscovery) {
		i, ok := idx[g.Name]
		if !ok {
			idx[g.Name] = len(out)
			cp := g
			cp.Versions = append([]apidiscoveryv2.APIVersionDiscovery(nil), g.Versions...)
			out = append(out, cp)
			return
		}
		for _, v := range g.Versions {
			found := false
			for j := range out[i].Versions {
				ov := &out[i].Versions[j]
				if ov.Version != v.Version {
					continue
				}
				found = true
				for _, r := range v.Resources {
					have := false
					for _, or := range ov.Resources {
						have = have || or.Resource == r.Resource
					}
					if !have {
						ov.Resources = append(append([]apidiscoveryv2.APIResourceDiscovery(nil), ov.Resources...), r)
					}
				}
			}
			if !found {
				out[i].Versions = append(out[i].Versions, v)
			}
		}
	}
	for _, g := range s.Groups {
		add(g)
	}
	for _, p := range c.Servers {
		if p == s || p.GateOff {
			continue
		}
		for _, g := range p.Groups {
			add(g)
		}
	}
	return out
}

// RestConfig is a client config for the cluster: the CA and the bearer token, the first
// server not killed as host.
func (c *Cluster) RestConfig() *rest.Config {
	return dt.ClientConfig(c.PKI, c.live().URL(), Token)
}

func (c *Cluster) live() *Server {
	for _, s := range c.Servers {
		s.mu.Lock()
		down := s.down
		s.mu.Unlock()
		if !down {
			return s
		}
	}
	return c.Servers[0]
}

// Kubeconfig writes a kubeconfig for the cluster (current context "probetest", server: the
// first server not killed) and returns its path.
func (c *Cluster) Kubeconfig(t testing.TB) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["probetest"] = &clientcmdapi.Cluster{Server: c.live().URL(), CertificateAuthorityData: c.PKI.CAPEM}
	kc.AuthInfos["probetest"] = &clientcmdapi.AuthInfo{Token: Token}
	kc.Contexts["probetest"] = &clientcmdapi.Context{Cluster: "probetest", AuthInfo: "probetest"}
	kc.CurrentContext = "probetest"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// Groups136 is a small 1.36-like /apis, with batch/v1 when withBatch.
func Groups136(withBatch bool) []apidiscoveryv2.APIGroupDiscovery { return dt.BuiltinGroups(withBatch) }
