package discover

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"k8s.io/client-go/rest"
)

// maxBody caps one response. Discovery of a large cluster is a few MiB; a CRD list page with
// big schemas can be tens of MiB. Past this, something is wrong and memory is protected.
const maxBody = 128 << 20

// serverClient sends GETs to one server with the kubeconfig's credentials. It does not follow
// redirects: the credentials are added by the transport, and a redirect to a login page on
// another host would carry them there.
type serverClient struct {
	base    string // scheme://host[:port][/prefix], no trailing slash, no user info
	http    *http.Client
	timeout time.Duration // for messages only; the deadline is on the context
}

// newServerClient builds a client for base with cfg's credentials and TLS settings, verifying
// the serving certificate against serverName when it is not empty.
func newServerClient(cfg *rest.Config, base, serverName string, timeout time.Duration) (*serverClient, error) {
	c := rest.CopyConfig(cfg)
	c.Host = base
	c.APIPath = ""
	if serverName != "" {
		c.TLSClientConfig.ServerName = serverName
	}
	hc, err := rest.HTTPClientFor(c)
	if err != nil {
		// Messages from client-go's config validation name files, never their contents.
		return nil, &Error{Kind: KindConfig, Base: base, Msg: fmt.Sprintf("cannot build a client: %s — check the kubeconfig", oneLine(err.Error())), Err: err}
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &serverClient{base: base, http: hc, timeout: timeout}, nil
}

// response is an HTTP answer, whatever its status.
type response struct {
	code        int
	contentType string
	location    string
	etag        string
	body        []byte
}

// get sends one GET; only transport failures are errors.
func (c *serverClient) get(ctx context.Context, path, accept string) (*response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, &Error{Kind: KindConfig, Base: c.base, Path: path, Msg: oneLine(err.Error()), Err: err}
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, transportError(c.base, path, c.timeout, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			// The server promised a Content-Length it did not send: a cut body.
			return nil, decodeError(c.base, path, len(body), err)
		}
		return nil, transportError(c.base, path, c.timeout, err)
	}
	if len(body) > maxBody {
		return nil, invalidDoc(c.base, path, fmt.Sprintf("the response is larger than %d MiB — not a discovery document?", maxBody>>20))
	}
	return &response{code: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), location: resp.Header.Get("Location"),
		etag: resp.Header.Get("ETag"), body: body}, nil
}

// getJSON GETs path, requires a 200 JSON answer and decodes it into out. It returns the
// response's Content-Type, whose parameters tell which discovery format the server chose.
func (c *serverClient) getJSON(ctx context.Context, path, accept string, out any) (string, error) {
	resp, err := c.get(ctx, path, accept)
	if err != nil {
		return "", err
	}
	if err := c.checkJSON(path, resp); err != nil {
		return "", err
	}
	if err := decodeJSON(c, path, resp.body, out); err != nil {
		return "", err
	}
	return resp.contentType, nil
}

// checkJSON turns a non-200, an HTML page or a non-JSON 200 into an Error.
func (c *serverClient) checkJSON(path string, resp *response) error {
	switch {
	case resp.code >= 300 && resp.code < 400:
		return redirectError(c.base, path, resp.code, resp.location)
	case resp.code != http.StatusOK:
		return statusError(c.base, path, resp.code, resp.contentType, resp.body)
	case isHTML(resp.contentType, resp.body):
		return htmlError(c.base, path, resp.body)
	}
	mt, _, err := mime.ParseMediaType(resp.contentType)
	if err != nil || mt != "application/json" {
		return contentTypeError(c.base, path, resp.contentType, "application/json")
	}
	return nil
}

// normalizeBase checks a server URL and returns it without user info, query or trailing
// slash. A URL with user info is refused: mvpctl takes credentials from the kubeconfig, and
// echoing the URL back would print them.
func normalizeBase(raw string) (string, error) {
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("not a URL: %s", oneLine(err.Error()))
	}
	if u.User != nil {
		return "", errors.New("the URL holds credentials; remove them (mvpctl uses the kubeconfig's)")
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return "", fmt.Errorf("scheme %q: want https", u.Scheme)
	}
	if u.Host == "" {
		return "", errors.New("no host")
	}
	u.RawQuery, u.Fragment = "", ""
	return strings.TrimSuffix(u.String(), "/"), nil
}

// HostPort returns a URL's host:port, with the scheme's default port filled in ("https://"
// assumed when there is no scheme), for matching against peer-advertise addresses.
func HostPort(raw string) string {
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = "443"
		if u.Scheme == "http" {
			port = "80"
		}
	}
	return normAddr(net.JoinHostPort(u.Hostname(), port))
}

// hostOnly returns base's host without port, e.g. for a TLS server name.
func hostOnly(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return u.Hostname()
}
