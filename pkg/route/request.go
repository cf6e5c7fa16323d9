package route

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// PeerProxiedHeader is the loop-prevention header. Every release 1.28–1.37 uses this name and
// the value "true"; the "X-Kubernetes-APIServer-Rerouted" of the 1.28 blog post was never
// released (docs/behaviour.md §3.2).
const PeerProxiedHeader = mvp.LoopPreventionHeader

// Request is one HTTP request as the apiserver sees it after parsing.
type Request struct {
	Method string `json:"method"`
	// Path is the URL path; RawQuery the query string without "?".
	Path     string `json:"path"`
	RawQuery string `json:"query,omitempty"`
	// HeaderProxied is true when the request carries x-kubernetes-peer-proxied: true.
	HeaderProxied bool `json:"headerProxied,omitempty"`

	Info RequestInfo `json:"requestInfo"`
}

// RequestInfo is k8s.io/apiserver's RequestInfo, with the fields the router and the reader of
// an explanation need.
type RequestInfo struct {
	IsResourceRequest bool   `json:"isResourceRequest"`
	Verb              string `json:"verb"`
	APIPrefix         string `json:"apiPrefix,omitempty"`
	APIGroup          string `json:"apiGroup,omitempty"`
	APIVersion        string `json:"apiVersion,omitempty"`
	Namespace         string `json:"namespace,omitempty"`
	Resource          string `json:"resource,omitempty"`
	Subresource       string `json:"subresource,omitempty"`
	Name              string `json:"name,omitempty"`
}

// GVR is the routing key's group/version/resource (the subresource, name, namespace and verb
// play no part in the decision, docs/behaviour.md §2 step 5).
func (r RequestInfo) GVR() snapshot.GVR {
	return snapshot.GVR{Group: r.APIGroup, Version: r.APIVersion, Resource: r.Resource}
}

// requestInfoFactory is configured as kube-apiserver configures its own
// (k8s.io/apiserver/pkg/server.NewRequestInfoResolver): prefixes "api" and "apis", "api"
// groupless.
var requestInfoFactory = &request.RequestInfoFactory{
	APIPrefixes:          sets.NewString("api", "apis"),
	GrouplessAPIPrefixes: sets.NewString("api"),
}

var methods = sets.NewString(http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
	http.MethodPatch, http.MethodDelete, http.MethodOptions, http.MethodConnect)

// nonResourcePrefixes are the non-resource paths kube-apiserver serves. A path outside them
// and outside /api and /apis is not a Kubernetes API path, and is rejected rather than
// silently "routed".
var nonResourcePrefixes = []string{"/healthz", "/livez", "/readyz", "/version", "/metrics",
	"/openapi", "/.well-known", "/logs", "/debug", "/swagger", "/flowcontrol"}

// ParseRequest parses "METHOD PATH[?QUERY]" exactly as the apiserver does, with the same
// RequestInfoFactory. A full URL is accepted; its scheme and host are ignored.
func ParseRequest(method, target string) (Request, error) {
	m := strings.ToUpper(strings.TrimSpace(method))
	if !methods.Has(m) {
		return Request{}, fmt.Errorf("%q is not an HTTP method (want GET, POST, PUT, PATCH, DELETE, HEAD, ...)", method)
	}
	target = strings.TrimSpace(target)
	if target == "" {
		return Request{}, fmt.Errorf("empty path: want e.g. /apis/batch/v1/namespaces/default/jobs")
	}
	u, err := url.Parse(target)
	if err != nil {
		return Request{}, fmt.Errorf("%q is not a URL path: %v", target, err)
	}
	if u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https" {
		return Request{}, fmt.Errorf("%q: scheme %q is not http or https", target, u.Scheme)
	}
	if !strings.HasPrefix(u.Path, "/") {
		return Request{}, fmt.Errorf("%q is not a Kubernetes API path: it must start with / (e.g. /api/v1/pods)", target)
	}
	if strings.Contains(strings.TrimSuffix(u.Path, "/"), "//") {
		return Request{}, fmt.Errorf("%q has an empty path segment (//): no Kubernetes client sends that", u.Path)
	}
	if !isKubernetesPath(u.Path) {
		return Request{}, fmt.Errorf("%q is not a Kubernetes API path: want /api/..., /apis/..., or a non-resource path such as /healthz, /version, /metrics", u.Path)
	}
	httpReq := &http.Request{Method: m, URL: &url.URL{Path: u.Path, RawQuery: u.RawQuery}}
	info, err := requestInfoFactory.NewRequestInfo(httpReq)
	if err != nil {
		return Request{}, fmt.Errorf("%s %s: %v", m, target, err)
	}
	return Request{
		Method:   m,
		Path:     u.Path,
		RawQuery: u.RawQuery,
		Info: RequestInfo{
			IsResourceRequest: info.IsResourceRequest,
			Verb:              info.Verb,
			APIPrefix:         info.APIPrefix,
			APIGroup:          info.APIGroup,
			APIVersion:        info.APIVersion,
			Namespace:         info.Namespace,
			Resource:          info.Resource,
			Subresource:       info.Subresource,
			Name:              info.Name,
		},
	}, nil
}

func isKubernetesPath(p string) bool {
	if p == "/" || p == "/api" || p == "/apis" || strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/apis/") {
		return true
	}
	for _, pre := range nonResourcePrefixes {
		if p == pre || strings.HasPrefix(p, pre+"/") {
			return true
		}
	}
	return false
}

// URL returns the path with its query, as sent on the wire.
func (r Request) URL() string {
	if r.RawQuery == "" {
		return r.Path
	}
	return r.Path + "?" + r.RawQuery
}
