package proxycluster

import (
	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"

	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Server is one fake kube-apiserver. Set the fields, then pass it to Start.
type Server struct {
	Name    string // hostname: the server's ID is mvp.ServerID(Name)
	Version string // e.g. v1.36.3
	Core    apidiscoveryv2.APIGroupDiscovery
	Groups  []apidiscoveryv2.APIGroupDiscovery

	// NoFilter: no proxy filter (gate off or no --peer-ca-file): everything is local and the
	// header is ignored. Such a server is nobody's peer when GateOff is also set.
	NoFilter bool
	GateOff  bool
	// IgnoreLoopHeader: a defect — the server proxies requests carrying the loop header too.
	IgnoreLoopHeader bool
	// DenyAll: every resource request is forbidden (RBAC) before the proxy decides.
	DenyAll bool
	// MetricsForbidden: /metrics answers 403.
	MetricsForbidden bool
	// Slow delays every resource request (until the client gives up, if sooner).
	Slow time.Duration
	// Answer, when set, is offered every request the server's own handler chain handles (its
	// own and those it serves for a peer): when it returns true it has written the answer.
	Answer func(w http.ResponseWriter, r *http.Request) bool
	// Token is the bearer token this server accepts (the package's Token when empty): a
	// server only its own kubeconfig context can read.
	Token string

	ID   string
	Fake *dt.Server
	HTTP *httptest.Server

	c        *Cluster
	fallback http.Handler // test/fake/apiserver's handler: discovery, /version, /readyz, leases
	mu       sync.Mutex
	down     bool
	gone     bool // endpoint key expired: peers cannot resolve the address
	rerouted map[string]float64
	errors   map[string]float64
	requests []string
	// metricsReads counts the answers of /metrics.
	metricsReads int
}

// URL is the server's https://127.0.0.1:port.
func (s *Server) URL() string { return s.HTTP.URL }

// Addr is the server's ip:port (its peer-advertise address).
func (s *Server) Addr() string { return s.HTTP.Listener.Addr().String() }

// Kill closes the listener (connection refused from now on). Its identity lease stays, renewed
// just now, so peers' transport to it fails with the transport 503 until ExpireEndpoint.
func (s *Server) Kill() {
	s.mu.Lock()
	s.down = true
	s.mu.Unlock()
	s.HTTP.Close()
	s.c.refreshLeases()
}

// ExpireEndpoint makes the server's peer endpoint key expire: peers answer the
// endpoint-resolution 503, and its identity lease's renewTime is an hour old.
func (s *Server) ExpireEndpoint() {
	s.mu.Lock()
	s.gone = true
	s.mu.Unlock()
	s.c.refreshLeases()
}

// Requests lists the resource requests served, as "METHOD URI forced=BOOL".
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// Rerouted returns apiserver_rerouted_request_total summed over every series.
func (s *Server) Rerouted() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n float64
	for _, v := range s.rerouted {
		n += v
	}
	return n
}

func (s *Server) resource(g snapshot.GVR) *apidiscoveryv2.APIResourceDiscovery {
	for _, grp := range append([]apidiscoveryv2.APIGroupDiscovery{s.Core}, s.Groups...) {
		if grp.Name != g.Group {
			continue
		}
		for _, v := range grp.Versions {
			if v.Version != g.Version {
				continue
			}
			for i := range v.Resources {
				if v.Resources[i].Resource == g.Resource {
					return &v.Resources[i]
				}
			}
		}
	}
	return nil
}

func (s *Server) servesGroupVersion(group, version string) bool {
	for _, grp := range append([]apidiscoveryv2.APIGroupDiscovery{s.Core}, s.Groups...) {
		if grp.Name != group {
			continue
		}
		for _, v := range grp.Versions {
			if v.Version == version {
				return true
			}
		}
	}
	return false
}

func (s *Server) token() string {
	if s.Token != "" {
		return s.Token
	}
	return Token
}
