// Package probetest serves fake kube-apiservers that route resource requests the way the Mixed
// Version Proxy does (docs/behaviour.md §2), for tests of pkg/probe and of `mvpctl probe`. Discovery,
// /version, /readyz and the identity leases come from pkg/discover/discovertest; this package
// adds the resource requests, the loop-prevention header, the two 503s, /metrics, and the
// defects a probe must catch (a server that proxies despite the header). The response bodies
// are the real ones captured from kube-apiserver v1.36.3 (pkg/probe/testdata; a test there
// checks they stay equal).
package probetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/mvpctl/mvpctl/internal/apimetrics"
	dt "github.com/mvpctl/mvpctl/pkg/discover/discovertest"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Bodies captured from real v1.36.3 servers (pkg/probe/testdata).
const (
	// BodyTextNotFound: a path no handler serves (unknown group/version).
	BodyTextNotFound = "404 page not found\n"
	// BodyUnknownResource: a served group/version, an unknown resource.
	BodyUnknownResource = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}` + "\n"
	// BodyEndpointResolution: no candidate peer's address resolves.
	BodyEndpointResolution = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Error getting ip and port info of the remote server while proxying","reason":"ServiceUnavailable","code":503}` + "\n"
	// BodyTransportFormat: the chosen peer does not answer (%s is its address).
	BodyTransportFormat = "error trying to reach service: dial tcp %s: connect: connection refused\n"
	// BodyMissingObjectFormat: a missing object of a served resource (name, group, resource).
	BodyMissingObjectFormat = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"%[3]s.%[2]s \"%[1]s\" not found","reason":"NotFound","details":{"name":"%[1]s","group":"%[2]s","kind":"%[3]s"},"code":404}` + "\n"
	// BodyForbiddenFormat: RBAC denied (user, verb, resource, group).
	BodyForbiddenFormat = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"%[3]s.%[4]s is forbidden: User \"%[1]s\" cannot %[2]s resource \"%[3]s\" in API group \"%[4]s\"","reason":"Forbidden","details":{"group":"%[4]s","kind":"%[3]s"},"code":403}` + "\n"

	ContentTypeText = "text/plain; charset=utf-8"
	ContentTypeJSON = "application/json"
)

// Token is the bearer token the fake servers accept.
const Token = "probetest-token-0123456789abcdef"

// Server is one fake kube-apiserver. Set the fields, then pass it to Start.
type Server struct {
	Name    string // hostname: the server's ID is snapshot.ServerID(Name)
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
	// Token is the bearer token this server accepts (the package's Token when empty): a
	// server only its own kubeconfig context can read.
	Token string

	ID   string
	Fake *dt.Server
	HTTP *httptest.Server

	c        *Cluster
	fallback http.Handler // discovertest's handler: discovery, /version, /readyz, leases
	mu       sync.Mutex
	down     bool
	gone     bool // endpoint key expired: peers cannot resolve the address
	rerouted map[string]float64
	errors   map[string]float64
	requests []string
}

// Cluster is a control plane of fake servers sharing leases.
type Cluster struct {
	PKI     *dt.PKI
	Servers []*Server
	t       testing.TB
	shared  *dt.Cluster
}

// Start serves every server until the test ends.
func Start(t testing.TB, servers ...*Server) *Cluster {
	t.Helper()
	c := &Cluster{PKI: dt.NewPKI(t), Servers: servers, t: t, shared: &dt.Cluster{CRDsJSON: dt.CRDsJSONFixture, APIServicesJSON: dt.APIServicesJSONFixture}}
	for _, s := range servers {
		s.c = c
		s.ID = snapshot.ServerID(s.Name)
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

func gvrSet(s *Server) map[snapshot.GVR]bool {
	m := map[snapshot.GVR]bool{}
	for _, g := range append([]apidiscoveryv2.APIGroupDiscovery{s.Core}, s.Groups...) {
		for _, v := range g.Versions {
			for _, r := range v.Resources {
				m[snapshot.GVR{Group: g.Name, Version: v.Version, Resource: r.Resource}] = true
			}
		}
	}
	return m
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

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/metrics" {
		s.serveMetrics(w, r)
		return
	}
	if accept := r.Header.Get("Accept"); r.URL.Path == "/apis" && !s.NoFilter && !s.GateOff &&
		strings.HasPrefix(accept, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList") &&
		!strings.HasPrefix(accept, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer") {
		dt.WriteAggregated(w, "v2", s.c.peerAggregated(s))
		return
	}
	req, err := route.ParseRequest(r.Method, r.URL.RequestURI())
	if err != nil || !req.Info.IsResourceRequest || (isListPathOfFixture(r.URL.Path) && s.resource(req.Info.GVR()) != nil) {
		s.fallback.ServeHTTP(w, r)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+s.token() && (r.TLS == nil || len(r.TLS.PeerCertificates) == 0) {
		dt.WriteStatus(w, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
		return
	}
	forced := r.Header.Get(route.PeerProxiedHeader) == "true"
	s.mu.Lock()
	s.requests = append(s.requests, fmt.Sprintf("%s %s forced=%t", r.Method, r.URL.RequestURI(), forced))
	s.mu.Unlock()
	if s.Slow > 0 {
		select {
		case <-time.After(s.Slow):
		case <-r.Context().Done():
			return
		}
	}
	if s.DenyAll {
		info := req.Info
		writeRaw(w, http.StatusForbidden, ContentTypeJSON, fmt.Sprintf(BodyForbiddenFormat, "probetest", info.Verb, info.Resource, info.APIGroup))
		return
	}
	s.route(w, r, req, forced)
}

// isListPathOfFixture: the lease, CRD and APIService lists discovery reads are discovertest's.
func isListPathOfFixture(p string) bool {
	return p == "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases" ||
		p == "/apis/apiextensions.k8s.io/v1/customresourcedefinitions" ||
		p == "/apis/apiregistration.k8s.io/v1/apiservices" ||
		p == "/apis/internal.apiserver.k8s.io/v1alpha1/storageversions"
}

// route is docs/behaviour.md §2 for the DISC+ eras.
func (s *Server) route(w http.ResponseWriter, r *http.Request, req route.Request, forced bool) {
	g := req.Info.GVR()
	if s.resource(g) != nil || s.NoFilter || s.GateOff || (forced && !s.IgnoreLoopHeader) {
		s.local(w, r, req)
		return
	}
	var cands, resolved []*Server
	for _, p := range s.c.Servers {
		if p != s && !p.GateOff && p.resource(g) != nil {
			cands = append(cands, p)
			p.mu.Lock()
			gone := p.gone
			p.mu.Unlock()
			if !gone {
				resolved = append(resolved, p)
			}
		}
	}
	switch {
	case len(cands) == 0:
		s.local(w, r, req)
		return
	case len(resolved) == 0:
		s.count(s.errors, map[string]string{"type": "endpoint_resolution", "group": g.Group, "version": g.Version, "resource": g.Resource})
		writeRaw(w, http.StatusServiceUnavailable, ContentTypeJSON, BodyEndpointResolution)
		return
	}
	sort.Slice(resolved, func(i, j int) bool { return resolved[i].Name < resolved[j].Name })
	p := resolved[0] // deterministic: tests give one candidate, or equivalent ones
	p.mu.Lock()
	down := p.down
	p.mu.Unlock()
	code := 0
	if down {
		code = http.StatusServiceUnavailable
		writeRaw(w, code, ContentTypeText, fmt.Sprintf(BodyTransportFormat, p.Addr()))
	} else {
		rec := httptest.NewRecorder()
		body, _ := io.ReadAll(r.Body)
		pr := r.Clone(r.Context())
		pr.Body = io.NopCloser(bytes.NewReader(body))
		pr.Header.Set(route.PeerProxiedHeader, "true")
		p.serve(rec, pr)
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		code = rec.Code
		w.WriteHeader(code)
		w.Write(rec.Body.Bytes())
	}
	labels := map[string]string{"code": fmt.Sprint(code), "group": g.Group, "version": g.Version, "resource": g.Resource}
	if !mvp.ReroutedMetricHasGVR(parsed(s.Version)) {
		labels = map[string]string{"code": fmt.Sprint(code)}
	}
	s.count(s.rerouted, labels)
}

func (s *Server) count(m map[string]float64, labels map[string]string) {
	key := apimetrics.LabelKey(labels)
	s.mu.Lock()
	m["{"+key+"}"]++
	s.mu.Unlock()
}

// local is the server's own handler chain.
func (s *Server) local(w http.ResponseWriter, r *http.Request, req route.Request) {
	info := req.Info
	g := info.GVR()
	res := s.resource(g)
	if res == nil {
		if s.servesGroupVersion(g.Group, g.Version) {
			writeRaw(w, http.StatusNotFound, ContentTypeJSON, BodyUnknownResource)
		} else {
			writeRaw(w, http.StatusNotFound, ContentTypeText, BodyTextNotFound)
		}
		return
	}
	kind := ""
	if res.ResponseKind != nil {
		kind = res.ResponseKind.Kind
	}
	apiVersion := strings.TrimPrefix(g.Group+"/"+g.Version, "/")
	switch {
	case info.Verb == "list":
		writeRaw(w, http.StatusOK, ContentTypeJSON, fmt.Sprintf(`{"kind":%q,"apiVersion":%q,"metadata":{"resourceVersion":"214"},"items":[]}`+"\n", kind+"List", apiVersion))
	case info.Verb == "watch":
		w.Header().Set("Content-Type", ContentTypeJSON)
		w.WriteHeader(http.StatusOK)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	case info.Verb == "get":
		writeRaw(w, http.StatusNotFound, ContentTypeJSON, fmt.Sprintf(BodyMissingObjectFormat, info.Name, g.Group, g.Resource))
	case info.Verb == "create":
		if r.URL.Query().Get("dryRun") != "All" {
			s.c.t.Errorf("%s: a create without dryRun=All: %s", s.Name, r.URL.RequestURI())
		}
		var obj map[string]any
		if err := json.NewDecoder(r.Body).Decode(&obj); err != nil || obj["kind"] != kind || obj["apiVersion"] != apiVersion {
			s.c.t.Errorf("%s: create of %s with body %v (%v)", s.Name, g, obj, err)
		}
		b, _ := json.Marshal(obj)
		writeRaw(w, http.StatusCreated, ContentTypeJSON, string(b)+"\n")
	default:
		s.c.t.Errorf("%s: unexpected request %s %s", s.Name, r.Method, r.URL.RequestURI())
		writeRaw(w, http.StatusMethodNotAllowed, ContentTypeJSON, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"MethodNotAllowed","code":405}`)
	}
}

func (s *Server) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	if s.MetricsForbidden {
		dt.WriteStatus(w, http.StatusForbidden, "Forbidden", `forbidden: User "probetest" cannot get path "/metrics"`)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	b.WriteString("# HELP apiserver_request_total [STABLE] Counter of apiserver requests.\n# TYPE apiserver_request_total counter\n")
	b.WriteString(`apiserver_request_total{code="200",verb="GET"} 42` + "\n")
	writeFamily(&b, "apiserver_rerouted_request_total", "[ALPHA] Total number of requests that were proxied to a peer kube apiserver because the local apiserver was not capable of serving it", s.rerouted)
	if mvp.HasPeerProxyMetrics(parsed(s.Version)) {
		writeFamily(&b, "apiserver_peer_proxy_errors_total", "[ALPHA] Total number of errors encountered while proxying requests to a peer kube apiserver", s.errors)
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	fmt.Fprint(w, b.String())
}

func writeFamily(b *strings.Builder, name, help string, m map[string]float64) {
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s counter\n", name, help, name)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(b, "%s%s %g\n", name, k, m[k])
	}
}

func writeRaw(w http.ResponseWriter, code int, contentType, body string) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	io.WriteString(w, body)
}

// parsed is v as the rules take it; zero (no proxy) when it does not parse.
func parsed(v string) snapshot.Version {
	p, _ := snapshot.ParseVersion(v)
	return p
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

// Batch is the batch/v1 group (jobs, cronjobs), for servers that serve it.
func Batch() apidiscoveryv2.APIGroupDiscovery {
	return dt.Group("batch", dt.Ver("v1", dt.Resource("cronjobs", "CronJob", true, "status"), dt.Resource("jobs", "Job", true, "status")))
}

// Groups136 is a small 1.36-like /apis, with batch/v1 when withBatch.
func Groups136(withBatch bool) []apidiscoveryv2.APIGroupDiscovery { return dt.BuiltinGroups(withBatch) }

func (s *Server) token() string {
	if s.Token != "" {
		return s.Token
	}
	return Token
}
