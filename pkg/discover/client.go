package discover

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"time"

	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/redact"
)

// Error is one failed request to one server (internal/apiclient's, which words every failure
// of discover and probe alike).
type Error = apiclient.Error

// ErrorKind classifies an Error.
type ErrorKind = apiclient.ErrorKind

// serverClient reads one server's discovery and lists: apiclient's client, plus the rule that
// every answer discovery uses is a 200 JSON document.
type serverClient struct {
	*apiclient.Client
	base string
}

// newServerClient builds a client for base with cfg's credentials and TLS settings, verifying
// the serving certificate against serverName when it is not empty; red learns the credentials
// it sends.
func newServerClient(cfg *rest.Config, base, serverName string, timeout time.Duration, red *redact.Redactor) (*serverClient, error) {
	c, err := apiclient.New(cfg, base, apiclient.Options{ServerName: serverName, Timeout: timeout, Redactor: red})
	if err != nil {
		return nil, err
	}
	return &serverClient{Client: c, base: base}, nil
}

// get sends one GET; only transport failures, and bodies past the size limit, are errors.
func (c *serverClient) get(ctx context.Context, path, accept string) (*apiclient.Response, error) {
	resp, err := c.Get(ctx, path, accept)
	if err != nil {
		return nil, err
	}
	if resp.Truncated {
		return nil, apiclient.InvalidDoc(c.base, path, fmt.Sprintf("the response is larger than %d MiB — not a discovery document?", apiclient.DefaultMaxBody>>20))
	}
	if resp.Cut != nil {
		return nil, apiclient.DecodeError(c.base, path, len(resp.Body), resp.Cut)
	}
	return resp, nil
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
	if err := decodeJSON(c, path, resp.Body, out); err != nil {
		return "", err
	}
	return resp.ContentType, nil
}

// checkJSON turns a non-200, an HTML page or a non-JSON 200 into an Error.
func (c *serverClient) checkJSON(path string, resp *apiclient.Response) error {
	switch {
	case resp.Code >= 300 && resp.Code < 400:
		return apiclient.RedirectError(c.base, path, resp.Code, resp.Location)
	case resp.Code != http.StatusOK:
		return apiclient.StatusError(c.base, path, resp.Code, resp.ContentType, resp.Body)
	case apiclient.IsHTML(resp.ContentType, resp.Body):
		return apiclient.HTMLError(c.base, path, resp.Body)
	}
	mt, _, err := mime.ParseMediaType(resp.ContentType)
	if err != nil || mt != "application/json" {
		return apiclient.ContentTypeError(c.base, path, resp.ContentType, "application/json")
	}
	return nil
}

// HostPort returns a URL's host:port, with the scheme's default port filled in, for matching
// against peer-advertise addresses.
func HostPort(raw string) string { return apiclient.HostPort(raw) }

// kubeconfigServerClient is a client of the kubeconfig's own server (not of one apiserver of
// the plane): the cluster-wide lists that any apiserver answers alike.
func (o *Options) kubeconfigServerClient(red *redact.Redactor) (*serverClient, error) {
	cfg, err := o.baseConfig()
	if err != nil {
		return nil, err
	}
	base, err := apiclient.NormalizeBase(cfg.Host)
	if err != nil {
		return nil, err
	}
	return newServerClient(cfg, base, "", o.timeout(), red)
}
