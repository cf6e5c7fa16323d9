package probe

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
)

// defaultServingName is the DNS name every kube-apiserver's serving certificate carries (peers
// verify each other with it), so it is the last TLS server name tried.
const defaultServingName = "kubernetes.default.svc"

// userAgent identifies the probe in audit logs.
const userAgent = "mvpctl-probe"

// maxBody caps what is read of one answer. Lists ask for one item and watches last one second,
// so anything near this is not an answer worth reading further.
const maxBody = 1 << 20

// serverClient sends requests to one server, dialled directly at its endpoint. It never
// follows redirects: the credentials are added by the transport and would travel along.
type serverClient struct {
	base       string
	http       *http.Client
	serverName string // TLS server name in use ("" = the endpoint's host)
}

// answer is one HTTP response, read (up to maxBody) and closed.
type answer struct {
	code        int
	contentType string
	body        []byte
	took        time.Duration
}

// newServerClient builds a client for base with cfg's credentials, verifying the serving
// certificate against serverName when it is not empty.
func newServerClient(cfg *rest.Config, base, serverName string) (*serverClient, error) {
	c := rest.CopyConfig(cfg)
	c.Host = base
	c.APIPath = ""
	if serverName != "" {
		c.TLSClientConfig.ServerName = serverName
	}
	if c.UserAgent == "" {
		c.UserAgent = userAgent
	}
	// Deadlines come from the probe's contexts; a kubeconfig --request-timeout still applies.
	hc, err := rest.HTTPClientFor(c)
	if err != nil {
		return nil, fmt.Errorf("cannot build a client: %s — check the kubeconfig", oneLine(err.Error()))
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &serverClient{base: base, http: hc, serverName: serverName}, nil
}

// do sends one request and reads the answer. Only transport failures are errors.
func (c *serverClient) do(ctx context.Context, method, path string, header http.Header, body []byte) (*answer, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	t0 := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil && !(resp.StatusCode >= 200 && resp.StatusCode < 300) {
		// A success needs no body to be classified (a watch stream may be cut at the end);
		// an error answer does.
		return nil, err
	}
	return &answer{code: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: b, took: time.Since(t0)}, nil
}

// serverNames lists the TLS server names to try for a server at base: the one the user set
// alone; else the endpoint's host, then the kubeconfig server's host, then
// kubernetes.default.svc (a node's serving certificate rarely names its IP but always that).
func serverNames(cfg *rest.Config, base string) []string {
	if cfg.TLSClientConfig.ServerName != "" {
		return []string{cfg.TLSClientConfig.ServerName}
	}
	if cfg.TLSClientConfig.Insecure || !strings.HasPrefix(base, "https://") {
		return []string{""}
	}
	names := []string{""} // the endpoint's own host
	seen := map[string]bool{hostOf(base): true}
	for _, h := range []string{hostOf(cfg.Host), defaultServingName} {
		if h != "" && !seen[h] {
			seen[h] = true
			names = append(names, h)
		}
	}
	return names
}

func hostOf(raw string) string {
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// connect checks the server answers GET /version, trying the TLS server names in turn while
// the certificate names another host.
func connect(ctx context.Context, cfg *rest.Config, base string, timeout time.Duration) (*serverClient, error) {
	var lastErr error
	names := serverNames(cfg, base)
	for i, name := range names {
		c, err := newServerClient(cfg, base, name)
		if err != nil {
			return nil, err
		}
		rctx, cancel := context.WithTimeout(ctx, timeout)
		a, err := c.do(rctx, http.MethodGet, "/version", http.Header{"Accept": {"application/json"}}, nil)
		cancel()
		if err == nil {
			switch {
			case a.code == http.StatusUnauthorized:
				return nil, errors.New("GET /version: 401 Unauthorized — the server rejected the credentials (expired token or certificate?)")
			case a.code >= 300 && a.code < 400:
				return nil, fmt.Errorf("GET /version: HTTP %d redirect — something other than an apiserver answered at %s", a.code, base)
			}
			// Any other answer (even 403) shows the server is there; the probes will tell.
			return c, nil
		}
		lastErr = err
		var hn x509.HostnameError
		if !errors.As(err, &hn) || i == len(names)-1 {
			break
		}
	}
	return nil, fmt.Errorf("GET /version: %s", describeErr(lastErr, timeout))
}

// describeErr words a transport error for a person; it never includes request headers.
func describeErr(err error, timeout time.Duration) string {
	var (
		unknownCA x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
		verifyErr *tls.CertificateVerificationError
		recordErr tls.RecordHeaderError
		dnsErr    *net.DNSError
		netErr    net.Error
	)
	switch {
	case errors.Is(err, context.Canceled):
		return "interrupted before an answer came"
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		return fmt.Sprintf("no answer within %s — the server is overloaded or the traffic is dropped", timeout)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused — nothing listens there: the apiserver is down or the address is wrong"
	case errors.As(err, &unknownCA):
		return "TLS: certificate signed by unknown authority — pass --certificate-authority or --tls-server-name"
	case errors.As(err, &hostname):
		return fmt.Sprintf("TLS: the serving certificate is not valid for %q — pass --tls-server-name", hostname.Host)
	case errors.As(err, &invalid):
		return "TLS: " + oneLine(invalid.Error())
	case errors.As(err, &verifyErr):
		return "TLS: " + oneLine(verifyErr.Err.Error())
	case errors.As(err, &recordErr):
		return "TLS handshake failed: the address does not speak HTTPS"
	case errors.As(err, &dnsErr):
		return fmt.Sprintf("cannot resolve host %q", dnsErr.Name)
	case errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH):
		return "no route to the address — it is not reachable from here"
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET):
		return "the connection was closed before an answer came"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the URL is the server's, already named
	}
	return oneLine(err.Error())
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
