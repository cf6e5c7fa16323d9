package apiclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"k8s.io/client-go/rest"
)

// DefaultServingName is the DNS name every kube-apiserver's serving certificate carries:
// peers verify each other with it (docs/behaviour.md §5.2), so it is the last TLS server name
// tried.
const DefaultServingName = "kubernetes.default.svc"

// Options tune a Client.
type Options struct {
	// ServerName, when set, is the TLS server name the serving certificate is verified
	// against (instead of the URL's host).
	ServerName string
	// Timeout is only quoted in messages ("no answer within 10s"); deadlines are on the
	// contexts the caller passes.
	Timeout time.Duration
	// UserAgent is sent unless the rest.Config sets one.
	UserAgent string
	// MaxBody caps what is read of one answer; a longer body is cut and Response.Truncated set.
	MaxBody int64
}

// Client sends requests to one server with a kubeconfig's credentials. It never follows
// redirects: the credentials are added by the transport, and a redirect to a login page on
// another host would carry them there.
type Client struct {
	base string // scheme://host[:port][/prefix], no trailing slash, no user info
	http *http.Client
	opts Options
}

// New builds a client for base (see NormalizeBase) with cfg's credentials and TLS settings.
func New(cfg *rest.Config, base string, opts Options) (*Client, error) {
	c := rest.CopyConfig(cfg)
	c.Host = base
	c.APIPath = ""
	if opts.ServerName != "" {
		c.TLSClientConfig.ServerName = opts.ServerName
	}
	if c.UserAgent == "" {
		c.UserAgent = opts.UserAgent
	}
	hc, err := rest.HTTPClientFor(c)
	if err != nil {
		// Messages from client-go's config validation name files, never their contents.
		return nil, &Error{Kind: KindConfig, Base: base, Msg: fmt.Sprintf("cannot build a client: %s — check the kubeconfig", OneLine(err.Error())), Err: err}
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	return &Client{base: base, http: hc, opts: opts}, nil
}

// DefaultMaxBody caps one response when Options.MaxBody is not set. Discovery of a large
// cluster is a few MiB; a CRD list page with big schemas can be tens of MiB. Past this,
// something is wrong and memory is protected.
const DefaultMaxBody = 128 << 20

// Base is the server's URL.
func (c *Client) Base() string { return c.base }

// ServerName is the TLS server name in use ("" = the URL's host).
func (c *Client) ServerName() string { return c.opts.ServerName }

// Response is one HTTP answer, whatever its status, read (up to MaxBody) and closed.
type Response struct {
	Code        int
	ContentType string
	Location    string
	ETag        string
	Body        []byte
	// Truncated is true when the body was longer than MaxBody and was cut there.
	Truncated bool
	// Cut is the read error when a successful (2xx) answer's body ended early (a watch
	// stream cut by the deadline); the answer is still returned.
	Cut  error
	Took time.Duration
}

// Get sends one GET with the given Accept header.
func (c *Client) Get(ctx context.Context, path, accept string) (*Response, error) {
	var h http.Header
	if accept != "" {
		h = http.Header{"Accept": {accept}}
	}
	return c.Do(ctx, http.MethodGet, path, h, nil)
}

// Do sends one request and reads the answer. Only transport failures are errors (an
// *Error). A body that ends before its Content-Length on a non-2xx answer is an error of kind
// KindTruncated; on a 2xx answer it is returned with Response.Cut set, since a success needs
// no body to be classified.
func (c *Client) Do(ctx context.Context, method, path string, header http.Header, body []byte) (*Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, &Error{Kind: KindConfig, Method: method, Base: c.base, Path: path, Msg: OneLine(err.Error()), Err: err}
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	t0 := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		e := TransportError(c.base, path, c.opts.Timeout, err)
		e.Method = method
		return nil, e
	}
	defer resp.Body.Close()
	b, readErr := io.ReadAll(io.LimitReader(resp.Body, c.opts.MaxBody+1))
	r := &Response{Code: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Location: resp.Header.Get("Location"),
		ETag: resp.Header.Get("ETag"), Took: time.Since(t0)}
	if int64(len(b)) > c.opts.MaxBody {
		b, r.Truncated = b[:c.opts.MaxBody], true
	}
	r.Body = b
	if readErr != nil {
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			r.Cut = readErr
			return r, nil
		}
		var e *Error
		if errors.Is(readErr, io.ErrUnexpectedEOF) {
			// The server promised a Content-Length it did not send: a cut body.
			e = DecodeError(c.base, path, len(b), readErr)
		} else {
			e = TransportError(c.base, path, c.opts.Timeout, readErr)
		}
		e.Method = method
		return nil, e
	}
	return r, nil
}

// ServerNames lists the TLS server names to try for a server: the one the user set
// (--tls-server-name or the kubeconfig's tls-server-name) alone; none when verification is
// off or the URL is plain HTTP; else each of hosts in turn (the server's own host first, then
// e.g. the kubeconfig server's), then DefaultServingName — a node's serving certificate rarely
// names its IP but always that name.
func ServerNames(cfg *rest.Config, base string, hosts ...string) []string {
	if cfg.TLSClientConfig.ServerName != "" {
		return []string{cfg.TLSClientConfig.ServerName}
	}
	if cfg.TLSClientConfig.Insecure || HostOnly(base) == "" || schemeOf(base) == "http" {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, h := range append(append([]string{HostOnly(base)}, hosts...), DefaultServingName) {
		if h != "" && !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	return out
}

// IsHostnameMismatch reports whether err says the serving certificate names another host:
// the one failure the next TLS server name of ServerNames can fix.
func IsHostnameMismatch(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == KindTLSHostname
}

// Open sends one GET and returns the response with its body unread, for answers read as a
// stream (/metrics runs to tens of thousands of lines). The caller closes the body. Only
// transport failures are errors (an *Error).
func (c *Client) Open(ctx context.Context, path, accept string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, &Error{Kind: KindConfig, Base: c.base, Path: path, Msg: OneLine(err.Error()), Err: err}
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, TransportError(c.base, path, c.opts.Timeout, err)
	}
	return resp, nil
}
