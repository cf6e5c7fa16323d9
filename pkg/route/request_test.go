package route

import (
	"strings"
	"testing"
)

func TestParseRequest(t *testing.T) {
	tests := []struct {
		method, path string
		want         RequestInfo
	}{
		{"GET", "/api/v1/pods", RequestInfo{IsResourceRequest: true, Verb: "list", APIPrefix: "api", APIVersion: "v1", Resource: "pods"}},
		{"GET", "/api/v1/namespaces/default/pods/p1", RequestInfo{IsResourceRequest: true, Verb: "get", APIPrefix: "api", APIVersion: "v1", Namespace: "default", Resource: "pods", Name: "p1"}},
		{"GET", "/api/v1/namespaces/foo", RequestInfo{IsResourceRequest: true, Verb: "get", APIPrefix: "api", APIVersion: "v1", Namespace: "foo", Resource: "namespaces", Name: "foo"}},
		{"PUT", "/api/v1/namespaces/foo/finalize", RequestInfo{IsResourceRequest: true, Verb: "update", APIPrefix: "api", APIVersion: "v1", Namespace: "foo", Resource: "namespaces", Name: "foo", Subresource: "finalize"}},
		{"get", "/apis/batch/v1/namespaces/default/jobs?watch=true&timeoutSeconds=1", RequestInfo{IsResourceRequest: true, Verb: "watch", APIPrefix: "apis", APIGroup: "batch", APIVersion: "v1", Namespace: "default", Resource: "jobs"}},
		{"GET", "/apis/batch/v1/watch/jobs", RequestInfo{IsResourceRequest: true, Verb: "watch", APIPrefix: "apis", APIGroup: "batch", APIVersion: "v1", Resource: "jobs"}},
		{"PUT", "/apis/batch/v1/namespaces/default/jobs/j/status", RequestInfo{IsResourceRequest: true, Verb: "update", APIPrefix: "apis", APIGroup: "batch", APIVersion: "v1", Namespace: "default", Resource: "jobs", Name: "j", Subresource: "status"}},
		{"DELETE", "/apis/batch/v1/namespaces/default/jobs", RequestInfo{IsResourceRequest: true, Verb: "deletecollection", APIPrefix: "apis", APIGroup: "batch", APIVersion: "v1", Namespace: "default", Resource: "jobs"}},
		{"POST", "https://lb.example:6443/apis/resource.k8s.io/v1beta1/resourceclaims", RequestInfo{IsResourceRequest: true, Verb: "create", APIPrefix: "apis", APIGroup: "resource.k8s.io", APIVersion: "v1beta1", Resource: "resourceclaims"}},
		// Discovery and health paths are non-resource: never proxied.
		{"GET", "/api", RequestInfo{Verb: "get"}},
		{"GET", "/apis", RequestInfo{Verb: "get"}},
		{"GET", "/api/v1", RequestInfo{Verb: "get"}},
		{"GET", "/apis/batch", RequestInfo{Verb: "get"}},
		{"GET", "/apis/batch/v1", RequestInfo{Verb: "get", APIPrefix: "apis"}}, // the factory sets the prefix before it finds too few segments
		{"GET", "/healthz", RequestInfo{Verb: "get"}},
		{"GET", "/version", RequestInfo{Verb: "get"}},
		{"GET", "/metrics", RequestInfo{Verb: "get"}},
		{"GET", "/openapi/v3/apis/batch/v1", RequestInfo{Verb: "get"}},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			got, err := ParseRequest(tt.method, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if got.Info != tt.want {
				t.Errorf("got %+v\nwant %+v", got.Info, tt.want)
			}
		})
	}
}

func TestParseRequestErrors(t *testing.T) {
	tests := []struct{ method, path, want string }{
		{"FETCH", "/api/v1/pods", "not an HTTP method"},
		{"GET", "", "empty path"},
		{"GET", "api/v1/pods", "must start with /"},
		{"GET", "/foo/bar", "not a Kubernetes API path"},
		{"GET", "ftp://x/api/v1/pods", "scheme"},
		{"GET", "%zz", "not a URL path"},
		{"GET", "/api//v1/pods", "empty path segment"},
	}
	for _, tt := range tests {
		_, err := ParseRequest(tt.method, tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseRequest(%q, %q) error = %v, want it to mention %q", tt.method, tt.path, err, tt.want)
		}
	}
}

func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{"/api/v1/pods", "/apis/a/b/c/d/e/f", "/apis", "//", "/api/v1/namespaces//pods", "/apis/x/y/watch"} {
		f.Add("GET", s)
	}
	f.Fuzz(func(t *testing.T, method, path string) {
		r, err := ParseRequest(method, path)
		if err == nil && r.Info.IsResourceRequest && r.Info.APIVersion == "" {
			t.Errorf("resource request without a version: %q", path)
		}
	})
}
