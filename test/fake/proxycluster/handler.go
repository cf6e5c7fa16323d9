package proxycluster

import (
	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"

	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/internal/apimetrics"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

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
	if s.aggregatorAnswers(w, r) {
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

// isListPathOfFixture: the lease, CRD and APIService lists discovery reads are test/fake/apiserver's.
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
	if s.Answer != nil && s.Answer(w, r) {
		return
	}
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
	s.metricsReads++
	var b strings.Builder
	b.WriteString("# HELP apiserver_request_total [STABLE] Counter of apiserver requests.\n# TYPE apiserver_request_total counter\n")
	b.WriteString(`apiserver_request_total{code="200",verb="GET"} 42` + "\n")
	writeFamily(&b, mvp.ReroutedMetric, "[ALPHA] Total number of requests that were proxied to a peer kube apiserver because the local apiserver was not capable of serving it", s.rerouted)
	if mvp.HasPeerProxyMetrics(parsed(s.Version)) {
		writeFamily(&b, mvp.PeerProxyErrorsMetric, "[ALPHA] Total number of errors encountered while proxying requests to a peer kube apiserver", s.errors)
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	fmt.Fprint(w, b.String())
}

// MetricsReads is how many times /metrics was answered.
func (s *Server) MetricsReads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.metricsReads
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
