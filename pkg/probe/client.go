package probe

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/redact"
)

// userAgent identifies the probe in audit logs.
const userAgent = "mvpctl-probe"

// MaxBody caps what is read of one answer. Lists ask for one item and watches last one second,
// so anything near this is not an answer worth reading further: a longer one is cut here, and
// the report says so (Response.Truncated). A cut 2xx is still classified by its status; a cut
// answer whose shape depends on its body (a 404, a 503) is classified as no apiserver's own.
const MaxBody = 1 << 20

// serverClient sends requests to one server, dialled directly at its endpoint
// (internal/apiclient's client, which discover uses too).
type serverClient = apiclient.Client

// connect checks the server answers GET /version, trying the TLS server names in turn while
// the certificate names another host (apiclient.ServerNames: the endpoint's host, the
// kubeconfig server's host, kubernetes.default.svc).
func connect(ctx context.Context, cfg *rest.Config, base string, timeout time.Duration, red *redact.Redactor) (*serverClient, error) {
	names := apiclient.ServerNames(cfg, base, apiclient.HostOnly(cfg.Host))
	if len(names) == 0 {
		names = []string{""} // verification off or plain HTTP: the URL's host, unchecked
	}
	var lastErr error
	for i, name := range names {
		if i == 0 && cfg.TLSClientConfig.ServerName == "" {
			name = "" // the endpoint's own host: no override
		}
		c, err := apiclient.New(cfg, base, apiclient.Options{ServerName: name, Timeout: timeout, UserAgent: userAgent, MaxBody: MaxBody, Redactor: red})
		if err != nil {
			return nil, err
		}
		rctx, cancel := context.WithTimeout(ctx, timeout)
		a, err := c.Get(rctx, "/version", "application/json")
		cancel()
		if err == nil {
			switch {
			case a.Code == http.StatusUnauthorized:
				return nil, errors.New("GET /version: 401 Unauthorized — the server rejected the credentials (expired token or certificate?)")
			case a.Code >= 300 && a.Code < 400:
				return nil, fmt.Errorf("GET /version: HTTP %d redirect — something other than an apiserver answered at %s", a.Code, base)
			}
			// Any other answer (even 403) shows the server is there; the probes will tell.
			return c, nil
		}
		lastErr = err
		if !apiclient.IsHostnameMismatch(err) {
			break
		}
	}
	return nil, fmt.Errorf("GET /version: %s", describeErr(lastErr, timeout))
}

// describeErr words a transport error for a person (apiclient's wording, without the request
// line, which the caller writes itself); it never includes request headers.
func describeErr(err error, timeout time.Duration) string {
	var e *apiclient.Error
	if errors.As(err, &e) {
		return e.Msg
	}
	return apiclient.TransportError("", "", timeout, err).Msg
}
