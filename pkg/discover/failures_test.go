package discover

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
)

const lbLoginPage = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in - Corp Access Proxy</title></head>
<body><form method="post" action="/login"><input name="user"><input type="password" name="pass"></form></body></html>`

const lb502Page = `<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx/1.25.3</center>
</body>
</html>`

func answer(code int, contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(code)
		fmt.Fprint(w, body)
	}
}

// TestFailureModes: every way a server can fail to answer gets its own one-line message naming
// the URL and what to do; the server is recorded unreachable; nothing panics.
func TestFailureModes(t *testing.T) {
	p := dt.NewPKI(t)
	other := dt.NewPKI(t) // a CA the client does not trust

	// Truncated: a well-formed header and a JSON body cut in the middle.
	full := `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[{"metadata":{"name":"apps"},"versions":[{"version":"v1","resources":[{"resource":"deployments","responseKind":{"group":"","version":"","kind":"Deployment"},"scope":"Namespaced","singularResource":"deployment","verbs":["get","list"]}],"freshness":"Current"}]}]}`
	cases := []struct {
		name     string
		override map[string]http.HandlerFunc
		token    string // required by the server
		cfg      func(f *dt.Server) *rest.Config
		cert     func() *dt.Server
		timeout  time.Duration
		want     []string // substrings of the server's error
	}{
		{
			name:     "HTML login page from a load balancer",
			override: map[string]http.HandlerFunc{"/version": answer(200, "text/html; charset=utf-8", lbLoginPage)},
			want:     []string{"GET https://", "/version: got an HTML page (\"Sign in - Corp Access Proxy\") instead of JSON", "point --endpoint at the apiserver itself"},
		},
		{
			name:     "HTML error page from a load balancer",
			override: map[string]http.HandlerFunc{"/apis": answer(502, "text/html", lb502Page)},
			want:     []string{"/apis: HTTP 502 Bad Gateway: HTML page \"502 Bad Gateway\" (from a load balancer or proxy?)"},
		},
		{
			name:     "truncated JSON",
			override: map[string]http.HandlerFunc{"/apis": answer(200, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", full[:len(full)/2])},
			want:     []string{"/apis: the JSON body is truncated after", "retry"},
		},
		{
			name: "connection cut mid-body",
			override: map[string]http.HandlerFunc{"/api": func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
				w.Header().Set("Content-Length", fmt.Sprint(len(full)))
				w.WriteHeader(200)
				fmt.Fprint(w, full[:40])
				w.(http.Flusher).Flush()
				conn, _, err := http.NewResponseController(w).Hijack()
				if err == nil {
					conn.Close()
				}
			}},
			want: []string{"/api: ", "truncated"},
		},
		{
			name:     "200 with the wrong content type",
			override: map[string]http.HandlerFunc{"/version": answer(200, "text/plain; charset=utf-8", "v1.36.3\n")},
			want:     []string{"/version: 200 with Content-Type \"text/plain; charset=utf-8\", want application/json", "rewrote the response"},
		},
		{
			name:     "200 protobuf nobody asked for",
			override: map[string]http.HandlerFunc{"/apis": answer(200, "application/octet-stream", "\x6b\x38\x73\x00")},
			want:     []string{"/apis: 200 with Content-Type \"application/octet-stream\""},
		},
		{
			name:  "401 Unauthorized",
			token: "the-right-token",
			cfg:   func(f *dt.Server) *rest.Config { return dt.ClientConfig(p, f.URL(), "an-expired-token") },
			want:  []string{"/api: 401 Unauthorized: the server rejected the credentials — check the kubeconfig user"},
		},
		{
			name: "403 Forbidden",
			override: map[string]http.HandlerFunc{"/apis": func(w http.ResponseWriter, r *http.Request) {
				dt.WriteStatus(w, http.StatusForbidden, metav1.StatusReasonForbidden, `forbidden: User "alice" cannot get path "/apis"`)
			}},
			want: []string{`/apis: 403 Forbidden: forbidden: User "alice" cannot get path "/apis" — grant the RBAC listed in docs/snapshot.md`},
		},
		{
			name: "TLS certificate signed by an unknown authority",
			cfg: func(f *dt.Server) *rest.Config {
				return &rest.Config{Host: f.URL(), TLSClientConfig: rest.TLSClientConfig{CAData: other.CAPEM}}
			},
			want: []string{"/version: TLS: certificate signed by unknown authority — pass --certificate-authority or --tls-server-name"},
		},
		{
			name: "TLS certificate for another name",
			cert: func() *dt.Server {
				c := p.ServingCert(t, []string{"apiserver.corp.example"})
				return &dt.Server{Cert: &c}
			},
			want: []string{"/version: TLS: the serving certificate is not valid for \"127.0.0.1\" (it names apiserver.corp.example) — pass --tls-server-name"},
		},
		{
			name: "timeout",
			override: map[string]http.HandlerFunc{"/version": func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-time.After(5 * time.Second):
				}
				// Never let the late answer look like a response.
				panic(http.ErrAbortHandler)
			}},
			timeout: 300 * time.Millisecond,
			want:    []string{"/version: no answer within 300ms", "raise --timeout"},
		},
		{
			name: "redirect to a login page",
			override: map[string]http.HandlerFunc{"/version": func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "https://sso.corp.example/login?state=abc123", http.StatusFound)
			}},
			want: []string{"/version: HTTP 302 redirect to https://sso.corp.example/login — a proxy or login page answered"},
		},
		{
			name:     "not a kube-apiserver",
			override: map[string]http.HandlerFunc{"/version": answer(404, "text/plain; charset=utf-8", "404 page not found\n")},
			want:     []string{"/version: 404 Not Found — is this a kube-apiserver?"},
		},
		{
			name:     "valid JSON of the wrong kind",
			override: map[string]http.HandlerFunc{"/version": answer(200, "application/json", `{"kind":"Status","apiVersion":"v1","status":"Success"}`)},
			want:     []string{"/version: no gitVersion — is this a kube-apiserver?"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &dt.Server{}
			if tc.cert != nil {
				f = tc.cert()
			}
			f.GitVersion, f.Mode, f.Core, f.Groups = "v1.36.3", dt.ModeNoPeer, dt.CoreGroup(), dt.BuiltinGroups(true)
			f.Override, f.Token = tc.override, tc.token
			f.Start(t, p)
			cfg := dt.ClientConfig(p, f.URL(), "")
			if tc.cfg != nil {
				cfg = tc.cfg(f)
			}
			start := time.Now()
			snap, err := discoverRT(t, context.Background(), Options{Config: cfg, Timeout: tc.timeout})
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %s", d)
			}
			s := snap.Servers[0]
			if s.Reachable {
				t.Fatalf("recorded reachable: %+v", s)
			}
			for _, w := range tc.want {
				if !strings.Contains(s.Error, w) {
					t.Errorf("error %q\n does not contain %q", s.Error, w)
				}
			}
			if strings.Contains(s.Error, "\n") {
				t.Errorf("error is not one line: %q", s.Error)
			}
			line := FailureLine(&s)
			t.Log(line)
			if !strings.HasPrefix(line, "server 127.0.0.1:") || !strings.Contains(line, "("+f.URL()+"): GET /") {
				t.Errorf("failure line %q does not name the server and URL", line)
			}
			if !snap.Partial() {
				t.Error("not partial")
			}
		})
	}
}

// TestConnectionRefusedEndpoint: an --endpoint where nothing listens, next to a good server.
func TestConnectionRefusedEndpoint(t *testing.T) {
	p := dt.NewPKI(t)
	f := (&dt.Server{Cluster: &dt.Cluster{}, GitVersion: "v1.36.3", Mode: dt.ModeNoPeer, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true)}).Start(t, p)
	dead := closedAddr(t)
	var rec recorder
	snap, err := discoverRT(t, context.Background(), rec.opts(Options{Config: dt.ClientConfig(p, f.URL(), ""), Endpoints: []string{"https://" + dead}}))
	if err != nil {
		t.Fatal(err)
	}
	s := snap.Find(dead)
	if s == nil || s.Reachable || s.FoundBy != FoundByEndpoint || !strings.Contains(s.Error, "connection refused — nothing listens there") {
		t.Fatalf("%+v", s)
	}
	if len(snap.Servers) != 1 {
		// The kubeconfig server is not added when the user names servers.
		t.Errorf("servers %v", snap.ServerNames())
	}
	if !slices.Contains(rec.progress, "found 1 apiserver (1 via --endpoint)") {
		t.Errorf("progress %q", rec.progress)
	}
}

// TestBadEndpointFlags: usage errors stop discovery before any request.
func TestBadEndpointFlags(t *testing.T) {
	for _, tc := range []struct{ endpoint, want string }{
		{"ftp://10.0.0.1", `scheme "ftp": want https`},
		{"https://", "no host"},
		{"https://admin:hunter2secret@10.0.0.1:6443", "(URL with credentials): the URL holds credentials"},
	} {
		_, err := Discover(context.Background(), Options{Config: &rest.Config{Host: "https://127.0.0.1:1"}, Endpoints: []string{tc.endpoint}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.endpoint, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2secret") {
			t.Errorf("error quotes the password: %v", err)
		}
	}
}

// TestReadyzFailuresAreEvidenceOnly: a readyz the caller cannot read leaves the proxy fields
// unknown, but the server is still read.
func TestReadyzFailuresAreEvidenceOnly(t *testing.T) {
	p := dt.NewPKI(t)
	f := &dt.Server{Cluster: &dt.Cluster{}, GitVersion: "v1.36.3", Mode: dt.ModeNoPeer, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true)}
	f.Override = map[string]http.HandlerFunc{"/readyz": func(w http.ResponseWriter, r *http.Request) {
		dt.WriteStatus(w, http.StatusForbidden, metav1.StatusReasonForbidden, `forbidden: User "system:anonymous" cannot get path "/readyz"`)
	}}
	f.Start(t, p)
	snap, err := discoverRT(t, context.Background(), Options{Config: dt.ClientConfig(p, f.URL(), "")})
	if err != nil {
		t.Fatal(err)
	}
	s := snap.Servers[0]
	if !s.Reachable || s.PeerProxy.FilterInstalled != nil {
		t.Errorf("reachable %v filterInstalled %v", s.Reachable, s.PeerProxy.FilterInstalled)
	}
	if !strings.Contains(strings.Join(s.PeerProxy.Evidence, "\n"), "readyz not read (GET /readyz?verbose: 403 Forbidden") {
		t.Errorf("evidence %q", s.PeerProxy.Evidence)
	}
}
