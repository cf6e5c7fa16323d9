package apiclient

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/mvpctl/mvpctl/pkg/redact"
)

// tlsClient is a client for srv, an httptest TLS server, trusting its certificate.
func tlsClient(t *testing.T, srv *httptest.Server, cfg *rest.Config, opts Options) *Client {
	t.Helper()
	if cfg == nil {
		cfg = &rest.Config{}
	}
	cfg.TLSClientConfig.CAData = certPEM(srv)
	c, err := New(cfg, srv.URL, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func certPEM(srv *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

// execConfig is a kubeconfig's exec credential plugin running command.
func execConfig(command string, args ...string) *clientcmdapi.ExecConfig {
	return &clientcmdapi.ExecConfig{Command: command, Args: args, APIVersion: "client.authentication.k8s.io/v1", InteractiveMode: clientcmdapi.NeverExecInteractiveMode}
}

// jsonErr is what encoding/json says of doc.
func jsonErr(doc string, v any) error { return json.Unmarshal([]byte(doc), v) }

// asError is err as an *Error, failing the test when it is not one.
func asError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want an *apiclient.Error", err, err)
	}
	return e
}

// TestDoAnswers: every answer is returned whatever its status, read and closed; redirects are
// not followed; bodies over the bound are cut; the caller words statuses, HTML and redirects.
func TestDoAnswers(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("ETag", `"e1"`)
		fmt.Fprintf(w, `{"accept":%q,"agent":%q,"method":%q}`, r.Header.Get("Accept"), r.UserAgent(), r.Method)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://login.example.com/sso?token=secret#x", http.StatusFound)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", 300)))
	})
	mux.HandleFunc("/denied", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"apis is forbidden: User \"bob\" cannot list","reason":"Forbidden","code":403}`))
	})
	mux.HandleFunc("/html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><head><title>Sign in \x1b[2J</title></head><body>...</body></html>"))
	})
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()
	c := tlsClient(t, srv, nil, Options{UserAgent: "mvpctl-test", MaxBody: 256})
	ctx := context.Background()

	r, err := c.Get(ctx, "/ok", "application/json")
	if err != nil {
		t.Fatal(err)
	}
	if r.Code != 200 || r.ContentType != "application/json" || r.ETag != `"e1"` || r.Truncated ||
		string(r.Body) != `{"accept":"application/json","agent":"mvpctl-test","method":"GET"}` {
		t.Errorf("GET /ok: %+v %s", r, r.Body)
	}
	if r, err = c.Do(ctx, http.MethodPost, "/ok", http.Header{"Accept": {"text/plain"}}, []byte("{}")); err != nil || !strings.Contains(string(r.Body), `"method":"POST"`) {
		t.Errorf("POST /ok: %v %s", err, r.Body)
	}

	r, err = c.Get(ctx, "/redirect", "")
	if err != nil || r.Code != http.StatusFound || !strings.HasPrefix(r.Location, "https://login.example.com/sso") {
		t.Fatalf("GET /redirect: %v %+v (a redirect is returned, never followed)", err, r)
	}
	if e := RedirectError(c.Base(), "/redirect", r.Code, r.Location); e.Kind != KindRedirect || strings.Contains(e.Error(), "secret") ||
		!strings.Contains(e.Msg, "HTTP 302 redirect to https://login.example.com/sso — ") {
		t.Errorf("RedirectError: %s", e)
	}

	if r, err = c.Get(ctx, "/big", ""); err != nil || !r.Truncated || len(r.Body) != 256 {
		t.Errorf("GET /big: %v, truncated %t after %d bytes, want cut at 256", err, r.Truncated, len(r.Body))
	}

	r, err = c.Get(ctx, "/denied", "")
	if err != nil || r.Code != http.StatusForbidden {
		t.Fatalf("GET /denied: %v %+v", err, r)
	}
	if e := StatusError(c.Base(), "/denied", r.Code, r.ContentType, r.Body); e.Kind != KindForbidden ||
		!strings.HasPrefix(e.Msg, `403 Forbidden: apis is forbidden: User "bob" cannot list — grant the RBAC`) {
		t.Errorf("StatusError: %s", e)
	}

	r, err = c.Get(ctx, "/html", "")
	if err != nil || !IsHTML(r.ContentType, r.Body) {
		t.Fatalf("GET /html: %v %+v", err, r)
	}
	if e := HTMLError(c.Base(), "/html", r.Body); e.Kind != KindHTML || !strings.Contains(e.Msg, `got an HTML page ("Sign in \x1b[2J") instead of JSON`) {
		t.Errorf("HTMLError: %s", e.Msg)
	}
	if d := StatusDetail(r.ContentType, r.Body); d != `: HTML page "Sign in \x1b[2J" (from a load balancer or proxy?)` {
		t.Errorf("StatusDetail of an HTML page: %q", d)
	}
}

// TestStatusErrors: each status gets its kind and advice.
func TestStatusErrors(t *testing.T) {
	status := `{"kind":"Status","message":"the server could not find it"}`
	for _, tc := range []struct {
		code        int
		contentType string
		body        string
		kind        ErrorKind
		msg         string
	}{
		{401, "", "", KindUnauthorized, "401 Unauthorized: the server rejected the credentials — check the kubeconfig user"},
		{403, "application/json", status, KindForbidden, "403 Forbidden: the server could not find it — grant the RBAC"},
		{404, "", "nothing", KindNotFound, "404 Not Found — is this a kube-apiserver?"},
		{429, "", "", KindStatus, "HTTP 429 Too Many Requests"},
		{502, "text/html", "<html>no title</html>", KindStatus, "HTTP 502 Bad Gateway: HTML page (from a load balancer or proxy?) — the server or a proxy in front of it failed"},
	} {
		e := StatusError("https://a", "/apis", tc.code, tc.contentType, []byte(tc.body))
		if e.Kind != tc.kind || !strings.HasPrefix(e.Msg, tc.msg) || e.Code != tc.code {
			t.Errorf("%d: %s %q, want %s %q", tc.code, e.Kind, e.Msg, tc.kind, tc.msg)
		}
	}
}

// TestDoFailures: refused, timeouts (the caller's deadline, the config's own request timeout),
// cancellation, and a body cut before its Content-Length, each an *Error of its kind.
func TestDoFailures(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	cut := func(code int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			fmt.Fprintf(buf, "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"kind\":", code)
			buf.Flush()
			conn.Close()
		}
	}
	mux.HandleFunc("/cut200", cut(200))
	mux.HandleFunc("/cut500", cut(500))
	srv := httptest.NewServer(mux) // plain HTTP: Hijack needs HTTP/1
	defer srv.Close()
	c, err := New(&rest.Config{}, srv.URL, Options{Timeout: 7 * time.Second})
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = c.Get(ctx, "/slow", "")
	if e := asError(t, err); e.Kind != KindTimeout || !strings.Contains(e.Msg, "no answer within 7s") {
		t.Errorf("deadline: %s %q", e.Kind, e.Msg)
	}

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err = c.Get(ctx, "/slow", "")
	if e := asError(t, err); e.Kind != KindTimeout || e.Msg != "interrupted before an answer came" {
		t.Errorf("cancel: %s %q", e.Kind, e.Msg)
	}

	rt, err := New(&rest.Config{Timeout: 100 * time.Millisecond}, srv.URL, Options{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	_, err = rt.Get(context.Background(), "/slow", "")
	if e := asError(t, err); e.Kind != KindTimeout || !strings.Contains(e.Msg, "no answer within 100ms (--request-timeout") {
		t.Errorf("request timeout: %s %q", e.Kind, e.Msg)
	}

	r, err := c.Get(context.Background(), "/cut200", "")
	if err != nil || r.Cut == nil || string(r.Body) != `{"kind":` {
		t.Errorf("cut 2xx: %v %+v (the answer is returned with Cut set)", err, r)
	}
	_, err = c.Do(context.Background(), http.MethodPut, "/cut500", nil, nil)
	if e := asError(t, err); e.Kind != KindTruncated || e.Method != http.MethodPut || !strings.HasPrefix(e.Error(), "PUT "+srv.URL+"/cut500: the JSON body is truncated after 8 bytes") {
		t.Errorf("cut 5xx: %s %q", e.Kind, e.Error())
	}

	srv.Close()
	_, err = c.Get(context.Background(), "/ok", "")
	if e := asError(t, err); e.Kind != KindRefused || e.Short() != "GET /ok: connection refused — nothing listens there: the apiserver is down or the address is wrong" {
		t.Errorf("refused: %s %q", e.Kind, e.Short())
	}
	if _, err := c.Open(context.Background(), "/metrics", "text/plain"); asError(t, err).Kind != KindRefused {
		t.Errorf("Open refused: %v", err)
	}
	if _, err := c.Do(context.Background(), "BAD METHOD", "/x", nil, nil); asError(t, err).Kind != KindConfig {
		t.Errorf("invalid method: %v", err)
	}
}

// TestTLS: an unknown authority, a certificate for another name (fixed by ServerNames' next
// name), plain HTTP where HTTPS was expected.
func TestTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	ctx := context.Background()

	untrusted, err := New(&rest.Config{}, srv.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = untrusted.Get(ctx, "/", "")
	if e := asError(t, err); e.Kind != KindTLSAuthority || !strings.Contains(e.Msg, "pass --certificate-authority") {
		t.Errorf("unknown authority: %s %q", e.Kind, e.Msg)
	}

	wrongName := tlsClient(t, srv, nil, Options{ServerName: "kas-a.test"})
	if wrongName.ServerName() != "kas-a.test" {
		t.Errorf("ServerName() = %q", wrongName.ServerName())
	}
	_, err = wrongName.Get(ctx, "/", "")
	if e := asError(t, err); e.Kind != KindTLSHostname || !IsHostnameMismatch(err) || !strings.Contains(e.Msg, `not valid for "kas-a.test" (it names `) {
		t.Errorf("hostname: %s %q", e.Kind, e.Msg)
	}
	// httptest's certificate names example.com: the name ServerNames would try after the host.
	if r, err := tlsClient(t, srv, nil, Options{ServerName: "example.com"}).Get(ctx, "/", ""); err != nil || string(r.Body) != "ok" {
		t.Errorf("with the certificate's name: %v", err)
	}

	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	c, err := New(&rest.Config{TLSClientConfig: rest.TLSClientConfig{Insecure: true}}, strings.Replace(plain.URL, "http://", "https://", 1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(ctx, "/", "")
	if e := asError(t, err); e.Kind != KindTLS || !strings.Contains(e.Msg, "does not speak HTTPS") {
		t.Errorf("plain HTTP: %s %q", e.Kind, e.Msg)
	}
}

// TestRedactorLearnsTokens: a bearer token the transport sends is learned before it leaves.
func TestRedactorLearnsTokens(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(r.Header.Get("Authorization")))
	}))
	defer srv.Close()
	red := &redact.Redactor{}
	c := tlsClient(t, srv, &rest.Config{BearerToken: "tok-1234567890abcdef"}, Options{Redactor: red})
	r, err := c.Get(context.Background(), "/", "")
	if err != nil || string(r.Body) != "Bearer tok-1234567890abcdef" {
		t.Fatalf("%v %q", err, r.Body)
	}
	if got := red.Clean("leaked tok-1234567890abcdef here"); strings.Contains(got, "tok-1234567890abcdef") {
		t.Errorf("the token sent was not learned: %q", got)
	}
}

// TestOpenStreams: Open returns the answer with its body unread.
func TestOpenStreams(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "accept %s\nline 2\n", r.Header.Get("Accept"))
	}))
	defer srv.Close()
	resp, err := tlsClient(t, srv, nil, Options{}).Open(context.Background(), "/metrics", "text/plain")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if strings.Join(lines, "|") != "accept text/plain|line 2" {
		t.Errorf("streamed %q", lines)
	}
}

// TestCredentialPlugin: a kubeconfig's exec plugin that fails is named as the kubeconfig's
// problem; one that hangs past the context is abandoned, and later requests fail at once.
func TestCredentialPlugin(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	failing := &rest.Config{ExecProvider: execConfig("false")}
	c := tlsClient(t, srv, failing, Options{})
	_, err := c.Get(context.Background(), "/", "")
	if e := asError(t, err); e.Kind != KindConfig || !strings.Contains(e.Msg, "the kubeconfig's credential plugin failed (") {
		t.Errorf("failing plugin: %s %q", e.Kind, e.Msg)
	}

	// The plugin's stderr is the test's: sleep gets /dev/null, so that go test does not wait
	// for the abandoned plugin.
	hanging := &rest.Config{ExecProvider: execConfig("sh", "-c", "exec sleep 2 2>/dev/null")}
	c = tlsClient(t, srv, hanging, Options{Timeout: 150 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	_, err = c.Get(ctx, "/", "")
	if e := asError(t, err); e.Kind != KindConfig || !strings.Contains(e.Msg, `credential plugin "sh" did not finish within 150ms (so no request was sent)`) {
		t.Errorf("hanging plugin: %s %q", e.Kind, e.Msg)
	}
	start := time.Now()
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	_, err = c.Get(ctx2, "/", "")
	if e := asError(t, err); e.Kind != KindTimeout || !strings.Contains(e.Msg, `interrupted while the kubeconfig's credential plugin "sh" ran`) || time.Since(start) > time.Second {
		t.Errorf("after a hung plugin: %s %q after %s", e.Kind, e.Msg, time.Since(start))
	}
	hungPlugins.Delete("sh")
}

// TestTransportErrorKinds: the errors of the standard library's transport, each worded by
// its type.
func TestTransportErrorKinds(t *testing.T) {
	for _, tc := range []struct {
		err  error
		kind ErrorKind
		msg  string
	}{
		{&net.DNSError{Name: "kas.invalid", Err: "no such host"}, KindUnreachable, `cannot resolve host "kas.invalid"`},
		{&net.OpError{Op: "dial", Err: syscall.EHOSTUNREACH}, KindUnreachable, "no route to the address"},
		{io.EOF, KindUnreachable, "the connection was closed before an answer came"},
		{errors.New(`Get "https://a/": getting credentials: exec: executable x failed with exit code 1`), KindConfig, "credential plugin failed (exec: executable x failed with exit code 1)"},
		{errors.New("remote error: tls: certificate required"), KindTLS, "TLS handshake failed: tls: certificate required — the server may require a client certificate"},
		{errors.New("something odd"), KindUnreachable, "something odd — check the address"},
	} {
		e := TransportError("https://a", "/", time.Second, tc.err)
		if e.Kind != tc.kind || !strings.Contains(e.Msg, tc.msg) || !errors.Is(e, tc.err) {
			t.Errorf("%v: %s %q, want %s %q", tc.err, e.Kind, e.Msg, tc.kind, tc.msg)
		}
	}
}

// TestDecodeAndContentTypeErrors: a cut JSON body is named as such; another invalid one is
// quoted, clipped; a wrong content type names what came.
func TestDecodeAndContentTypeErrors(t *testing.T) {
	var v map[string]any
	cut := jsonErr(`{"kind":"APIGroupList","groups":[`, &v)
	if e := DecodeError("https://a", "/apis", 33, cut); e.Kind != KindTruncated || !strings.Contains(e.Msg, "truncated after 33 bytes") {
		t.Errorf("cut: %s %q", e.Kind, e.Msg)
	}
	bad := jsonErr(`{"kind": tru}`, &v)
	if e := DecodeError("https://a", "/apis", 13, bad); e.Kind != KindInvalid || !strings.HasPrefix(e.Msg, "not a valid document: invalid character") {
		t.Errorf("invalid: %s %q", e.Kind, e.Msg)
	}
	if e := ContentTypeError("https://a", "/apis", "", "application/json"); e.Kind != KindContentType || !strings.HasPrefix(e.Msg, `200 with Content-Type "none", want application/json`) {
		t.Errorf("content type: %q", e.Msg)
	}
	if e := InvalidDoc("https://a", "/apis", "no groups"); e.Kind != KindInvalid || e.Error() != "GET https://a/apis: no groups" {
		t.Errorf("InvalidDoc: %q", e.Error())
	}
}

// TestURLs: base URLs are normalised, and one with credentials is refused without echoing them.
func TestURLs(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"10.0.0.1:6443", "https://10.0.0.1:6443", ""},
		{"https://kas.example.com:6443/prefix/?x=1#f", "https://kas.example.com:6443/prefix", ""},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080", ""},
		{"ftp://kas", "", `scheme "ftp": want https`},
		{"https://", "", "no host"},
		{"https://admin:hunter2@kas:6443", "", "the URL holds credentials"},
		{"https://admin:hunter2@kas:6443/%zz", "", "not a URL: invalid URL escape"},
	} {
		got, err := NormalizeBase(tc.in)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && (!strings.HasPrefix(err.Error(), tc.err) || strings.Contains(err.Error(), "hunter2"))) {
			t.Errorf("NormalizeBase(%q) = %q, %v; want %q, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
	if _, err := NormalizeBase("https://u:p@kas"); !errors.Is(err, ErrURLCredentials) {
		t.Errorf("a URL with user info: %v, want ErrURLCredentials", err)
	}
	for in, want := range map[string]string{"kas": "kas:443", "http://kas": "kas:80", "https://[::1]:6443": "[::1]:6443", "%zz://": ""} {
		if got := HostPort(in); got != want {
			t.Errorf("HostPort(%q) = %q, want %q", in, got, want)
		}
	}
	if h := HostOnly("https://kas.example.com:6443"); h != "kas.example.com" {
		t.Errorf("HostOnly = %q", h)
	}
	if a, b := NormAddr("[0:0:0:0:0:0:0:1]:6443"), NormAddr("[::1]:6443"); a != b || NormAddr("10.0.0.1") != "" {
		t.Errorf("NormAddr: %q %q", a, b)
	}
}

// TestServerNames: the user's name alone; none without verification or over plain HTTP; else
// the host, the others given, then kubernetes.default.svc, each once.
func TestServerNames(t *testing.T) {
	for _, tc := range []struct {
		cfg   rest.Config
		base  string
		hosts []string
		want  string
	}{
		{rest.Config{TLSClientConfig: rest.TLSClientConfig{ServerName: "mine"}}, "https://10.0.0.1", nil, "mine"},
		{rest.Config{TLSClientConfig: rest.TLSClientConfig{Insecure: true}}, "https://10.0.0.1", nil, ""},
		{rest.Config{}, "http://10.0.0.1", nil, ""},
		{rest.Config{}, "https://10.0.0.1:6443", []string{"lb.example.com", "10.0.0.1", ""}, "10.0.0.1,lb.example.com,kubernetes.default.svc"},
	} {
		if got := strings.Join(ServerNames(&tc.cfg, tc.base, tc.hosts...), ","); got != tc.want {
			t.Errorf("ServerNames(%s) = %q, want %q", tc.base, got, tc.want)
		}
	}
}

// TestTrustWarnings: verification off and plain HTTP each warn.
func TestTrustWarnings(t *testing.T) {
	if w := TrustWarnings(nil); w != nil {
		t.Errorf("nil config: %q", w)
	}
	w := TrustWarnings(&rest.Config{Host: "http://kas:8080", TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
	if len(w) != 2 || w[0] != InsecureWarning || w[1] != "plain HTTP to kas: the credentials and every answer travel unencrypted" {
		t.Errorf("warnings: %q", w)
	}
}

// TestNewRefusesABadConfig: client-go's config errors are the kubeconfig's.
func TestNewRefusesABadConfig(t *testing.T) {
	_, err := New(&rest.Config{TLSClientConfig: rest.TLSClientConfig{CAFile: "/nonexistent/ca.crt"}}, "https://kas", Options{})
	if e := asError(t, err); e.Kind != KindConfig || !strings.Contains(e.Msg, "— check the kubeconfig") {
		t.Errorf("%s %q", e.Kind, e.Msg)
	}
}

func TestClip(t *testing.T) {
	if Clip("abcdef", 3) != "abc…" || Clip("abc", 3) != "abc" {
		t.Error("Clip")
	}
}
