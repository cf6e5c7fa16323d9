package apiclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/pkg/redact"
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
	// Redactor, when set, learns every Authorization header the client sends (tokens from
	// exec plugins and auth providers included) before the request leaves.
	Redactor *redact.Redactor
}

// Client sends requests to one server with a kubeconfig's credentials. It never follows
// redirects: the credentials are added by the transport, and a redirect to a login page on
// another host would carry them there.
type Client struct {
	base string // scheme://host[:port][/prefix], no trailing slash, no user info
	http *http.Client
	opts Options
	// plugin names the credential plugin the transport runs before each request, if any.
	plugin string
	// requestTimeout is the config's own per-request timeout (--request-timeout, or the
	// kubeconfig's), which can end a request before the context does.
	requestTimeout time.Duration
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
	if opts.Redactor != nil {
		c.Wrap(opts.Redactor.Learn)
	}
	plugin := ""
	if c.ExecProvider != nil {
		plugin = c.ExecProvider.Command
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
	return &Client{base: base, http: hc, opts: opts, plugin: plugin, requestTimeout: c.Timeout}, nil
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

type maxBodyKey struct{}

// WithMaxBody returns ctx for requests whose answer is read at most n bytes long, when n is
// under the client's MaxBody: a kind of answer with a bound of its own (a ConfigMap holds at
// most 1 MiB) is not read to the bound of the largest kind (a discovery document).
func WithMaxBody(ctx context.Context, n int64) context.Context {
	return context.WithValue(ctx, maxBodyKey{}, n)
}

// maxBody is the bound on one answer's body for a request with ctx.
func (c *Client) maxBody(ctx context.Context) int64 {
	if n, ok := ctx.Value(maxBodyKey{}).(int64); ok && n > 0 && n < c.opts.MaxBody {
		return n
	}
	return c.opts.MaxBody
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
	resp, err := c.roundTrip(ctx, req)
	if err != nil {
		e := c.transportError(ctx, path, err)
		e.Method = method
		return nil, e
	}
	defer resp.Body.Close()
	limit := c.maxBody(ctx)
	b, readErr := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	r := &Response{Code: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Location: resp.Header.Get("Location"),
		ETag: resp.Header.Get("ETag"), Took: time.Since(t0)}
	if int64(len(b)) > limit {
		b, r.Truncated = b[:limit], true
	}
	r.Body = b
	if readErr != nil {
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			r.Cut = readErr
			if isTimeout(readErr) || errors.Is(readErr, context.Canceled) {
				// A body that stalled past the deadline: worded as the timeout it is, with
				// the deadline and the fix (DecodeError passes it on).
				e := c.transportError(ctx, path, readErr)
				e.Method = method
				r.Cut = e
			}
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
	resp, err := c.roundTrip(ctx, req)
	if err != nil {
		return nil, c.transportError(ctx, path, err)
	}
	return resp, nil
}

// roundTrip sends req, and gives up when ctx ends even if the transport has not returned: a
// kubeconfig's exec credential plugin runs inside the transport, unbounded by the context, and
// a hung one would hang mvpctl. The abandoned request finishes (or not) in the background.
func (c *Client) roundTrip(ctx context.Context, req *http.Request) (*http.Response, error) {
	if c.plugin != "" {
		if _, hung := hungPlugins.Load(c.plugin); hung {
			return nil, errPluginHung
		}
		if _, stopped := stoppedPlugins.Load(c.plugin); stopped {
			return nil, errPluginStopped
		}
		req = req.WithContext(redact.WithSentMarker(req.Context()))
		pluginRequests.Add(1)
		defer pluginRequests.Add(-1)
	}
	type result struct {
		resp *http.Response
		err  error
	}
	done := make(chan result, 1)
	stops := pluginStops.Load()
	go func() {
		resp, err := c.http.Do(req)
		c.notePluginStopped(stops, err)
		done <- result{resp, err}
	}()
	select {
	case r := <-done:
		return r.resp, r.err
	case <-ctx.Done():
		go func() {
			if r := <-done; r.resp != nil {
				r.resp.Body.Close()
			}
		}()
		if c.plugin != "" && !redact.Sent(req.Context()) {
			// The request never got past the credential plugin: later requests that need it
			// fail at once instead of waiting for it again.
			hungPlugins.Store(c.plugin, true)
			return nil, errPluginHung
		}
		return nil, ctx.Err()
	}
}

// pluginRequests counts the requests in flight whose credentials come from a plugin: only
// then can a plugin run, and only then does the process watch what its children write
// (cmd/mvpctl/internal/process).
var pluginRequests atomic.Int32

// PluginMayRun reports whether a request whose credentials come from a plugin is in flight.
func PluginMayRun() bool { return pluginRequests.Load() > 0 }

// pluginStopped is why the process stopped a credential plugin ("" when it did not).
var pluginStopped atomic.Value

// pluginStops counts the times the process stopped a credential plugin.
var pluginStops atomic.Int64

// NotePluginStopped records why the process stopped a credential plugin (it wrote past its
// bound), for the error of the request it held up.
func NotePluginStopped(reason string) {
	pluginStops.Add(1)
	pluginStopped.Store(reason)
}

// stoppedPlugins are the credential plugins (by command) the process stopped: each costs the
// memory client-go's buffer of its stdout grew to, so none is run a second time (client-go
// runs it again for every request that finds no credentials).
var stoppedPlugins sync.Map

// errPluginStopped marks a request whose credential plugin the process stopped before.
var errPluginStopped = errors.New("the credential plugin was stopped before")

// notePluginStopped marks c's plugin stopped when the request failed getting credentials
// after the process stopped a plugin (stops was the count when the request started).
func (c *Client) notePluginStopped(stops int64, err error) {
	if c.plugin != "" && err != nil && pluginStops.Load() != stops && strings.Contains(err.Error(), "getting credentials: ") {
		stoppedPlugins.Store(c.plugin, true)
	}
}

// hungPlugins are the credential plugins (by command) that did not finish within a request's
// time: mvpctl runs them once per process, not once per request.
var hungPlugins sync.Map

// errPluginHung marks a request the credential plugin held up.
var errPluginHung = errors.New("the credential plugin did not finish")

// transportError words a failed round trip; a timeout names the credential plugin when the
// kubeconfig has one, since it runs before the request is sent.
func (c *Client) transportError(ctx context.Context, path string, err error) *Error {
	if errors.Is(err, errPluginHung) && errors.Is(ctx.Err(), context.Canceled) {
		return &Error{Kind: KindTimeout, Base: c.base, Path: path, Err: err,
			Msg: fmt.Sprintf("interrupted while the kubeconfig's credential plugin %q ran (so no request was sent)", c.plugin)}
	}
	if why, _ := pluginStopped.Load().(string); why != "" && c.plugin != "" && (strings.Contains(err.Error(), "getting credentials: ") || errors.Is(err, errPluginStopped)) {
		return &Error{Kind: KindConfig, Base: c.base, Path: path, Err: err,
			Msg: fmt.Sprintf("the kubeconfig's credential plugin %q was stopped: %s (so no request was sent) — run it by hand to see what it prints", c.plugin, why)}
	}
	if errors.Is(err, errPluginHung) {
		return &Error{Kind: KindConfig, Base: c.base, Path: path, Err: err,
			Msg: fmt.Sprintf("the kubeconfig's credential plugin %q did not finish within %s (so no request was sent) — run it by hand to see what it waits for, or raise --timeout", c.plugin, c.opts.Timeout)}
	}
	timeout := c.opts.Timeout
	// A timeout while the caller's context still runs is the request's own timeout.
	if c.requestTimeout > 0 && (strings.Contains(err.Error(), "Client.Timeout exceeded") || (isTimeout(err) && ctx.Err() == nil)) {
		timeout = c.requestTimeout // the request's own timeout ended it, not --timeout
		e := TransportError(c.base, path, timeout, err)
		e.Msg = fmt.Sprintf("no answer within %s (--request-timeout, or the kubeconfig's request timeout) — the server is overloaded or a firewall drops the traffic; raise --request-timeout or check the address", timeout)
		return e
	}
	return TransportError(c.base, path, timeout, err)
}

// InsecureWarning is the warning every command prints when TLS verification is off.
const InsecureWarning = "TLS verification is off (--insecure-skip-tls-verify): the servers' identity is not checked, and the credentials go to whoever answers at their addresses"

// TrustWarnings are the warnings for a config that lowers trust: TLS verification off, or a
// plain-HTTP server (credentials and answers travel unencrypted).
func TrustWarnings(cfg *rest.Config) []string {
	var out []string
	if cfg == nil {
		return nil
	}
	if cfg.TLSClientConfig.Insecure {
		out = append(out, InsecureWarning)
	}
	if schemeOf(cfg.Host) == "http" {
		out = append(out, fmt.Sprintf("plain HTTP to %s: the credentials and every answer travel unencrypted", HostOnly(cfg.Host)))
	}
	return out
}

func isTimeout(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
