package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"
)

// errBackend is a real HTTPS aggregated API server, in the test's process on a loopback port,
// that serves one group/version the way metrics-server (a generic apiserver) does — aggregated
// discovery v2 at /apis, an APIResourceList at /apis/<group>/<version>, a namespaced resource
// "widgets" with verbs get and list — but answers discovery and/or resource requests with an
// error status or only after a delay (TestAggregatedBackendErrors).
type errBackend struct {
	group, version string
	// discoveryStatus / resourceStatus, when not 0 or 200, answer every discovery path
	// (/apis, /apis/<group>, /apis/<group>/<version>) / every resource request with that
	// status and a metav1.Status body, as a generic apiserver would.
	discoveryStatus, resourceStatus int
	// discoveryDelay / resourceDelay hold each answer back (or until the client gives up).
	discoveryDelay, resourceDelay time.Duration

	srv                  *httptest.Server
	discoveries, reqs    atomic.Int64
	port                 int
	discoveryPath, gvStr string
}

// start serves b on 127.0.0.1 with a self-signed certificate (the APIService skips TLS
// verification, as for metrics-server).
func (b *errBackend) start() {
	b.gvStr = b.group + "/" + b.version
	b.discoveryPath = "/apis/" + b.gvStr
	b.srv = httptest.NewTLSServer(http.HandlerFunc(b.serve))
	b.port = b.srv.Listener.Addr().(*net.TCPAddr).Port
}

func (b *errBackend) close() {
	b.srv.CloseClientConnections()
	b.srv.Close()
}

func (b *errBackend) serve(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case p == "/livez" || p == "/readyz" || p == "/healthz":
		_, _ = w.Write([]byte("ok"))
	case p == "/apis" || p == "/apis/"+b.group || p == b.discoveryPath:
		b.discoveries.Add(1)
		if !b.hold(r, b.discoveryDelay) {
			return
		}
		if b.discoveryStatus != 0 && b.discoveryStatus != http.StatusOK {
			writeStatus(w, b.discoveryStatus, "")
			return
		}
		b.discovery(w, r, p)
	case strings.HasPrefix(p, b.discoveryPath+"/"):
		b.reqs.Add(1)
		if !b.hold(r, b.resourceDelay) {
			return
		}
		if b.resourceStatus != 0 && b.resourceStatus != http.StatusOK {
			writeStatus(w, b.resourceStatus, "")
			return
		}
		b.resource(w, p)
	default:
		writeStatus(w, http.StatusNotFound, "")
	}
}

// hold waits d, or until the client gives up (false).
func (b *errBackend) hold(r *http.Request, d time.Duration) bool {
	if d == 0 {
		return true
	}
	select {
	case <-time.After(d):
		return true
	case <-r.Context().Done():
		return false
	}
}

var widgetResource = map[string]any{"name": "widgets", "singularName": "widget", "namespaced": true, "kind": "Widget", "verbs": []string{"get", "list"}}

// discovery answers the three discovery paths in metrics-server's shapes.
func (b *errBackend) discovery(w http.ResponseWriter, r *http.Request, p string) {
	switch {
	case p == "/apis" && strings.Contains(r.Header.Get("Accept"), "as=APIGroupDiscoveryList"):
		writeJSON(w, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", 200, map[string]any{
			"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": map[string]any{},
			"items": []any{map[string]any{"metadata": map[string]any{"name": b.group, "creationTimestamp": nil},
				"versions": []any{map[string]any{"version": b.version, "freshness": "Current", "resources": []any{map[string]any{
					"resource": "widgets", "responseKind": map[string]any{"group": "", "version": "", "kind": "Widget"},
					"scope": "Namespaced", "singularResource": "widget", "verbs": []string{"get", "list"}}}}}}}})
	case p == "/apis":
		writeJSON(w, "application/json", 200, map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": []any{b.apiGroup()}})
	case p == "/apis/"+b.group:
		g := b.apiGroup()
		g["kind"], g["apiVersion"] = "APIGroup", "v1"
		writeJSON(w, "application/json", 200, g)
	default:
		writeJSON(w, "application/json", 200, map[string]any{"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": b.gvStr, "resources": []any{widgetResource}})
	}
}

func (b *errBackend) apiGroup() map[string]any {
	gv := map[string]any{"groupVersion": b.gvStr, "version": b.version}
	return map[string]any{"name": b.group, "versions": []any{gv}, "preferredVersion": gv}
}

// resource answers a list with an empty WidgetList and a get with NotFound about the object.
func (b *errBackend) resource(w http.ResponseWriter, p string) {
	rest := strings.TrimPrefix(p, b.discoveryPath+"/")
	if strings.HasPrefix(rest, "namespaces/") {
		if parts := strings.SplitN(rest, "/", 3); len(parts) == 3 {
			rest = parts[2]
		}
	}
	switch parts := strings.Split(rest, "/"); {
	case len(parts) == 1 && parts[0] == "widgets":
		writeJSON(w, "application/json", 200, map[string]any{"kind": "WidgetList", "apiVersion": b.gvStr, "metadata": map[string]any{}, "items": []any{}})
	case len(parts) == 2 && parts[0] == "widgets":
		writeStatus(w, http.StatusNotFound, parts[1])
	default:
		writeStatus(w, http.StatusNotFound, "")
	}
}

// writeStatus writes a metav1.Status as a generic apiserver does; name, for a 404, is the
// object that does not exist.
func writeStatus(w http.ResponseWriter, code int, name string) {
	reason, msg := "InternalError", "Internal error occurred: e2e backend failure"
	var details map[string]any
	switch code {
	case http.StatusServiceUnavailable:
		reason, msg = "ServiceUnavailable", "the e2e backend is unavailable"
	case http.StatusNotFound:
		reason, msg = "NotFound", "the server could not find the requested resource"
		if name != "" {
			msg, details = fmt.Sprintf("widgets %q not found", name), map[string]any{"name": name, "kind": "widgets"}
		}
	}
	st := map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{}, "status": "Failure", "message": msg, "reason": reason, "code": code}
	if details != nil {
		st["details"] = details
	}
	writeJSON(w, "application/json", code, st)
}

func writeJSON(w http.ResponseWriter, contentType string, code int, v any) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
