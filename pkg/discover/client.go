package discover

import (
	"context"
	"time"

	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/clientevidence"
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
	return c.GetWhole(ctx, path, accept)
}

// getJSON GETs path, requires a 200 JSON answer and decodes it into out. It returns the
// response's Content-Type, whose parameters tell which discovery format the server chose.
func (c *serverClient) getJSON(ctx context.Context, path, accept string, out any) (string, error) {
	resp, err := c.GetJSON(ctx, path, accept, out)
	if err != nil {
		return "", err
	}
	return resp.ContentType, nil
}

// checkJSON turns a non-200, an HTML page or a non-JSON 200 into an Error.
func (c *serverClient) checkJSON(path string, resp *apiclient.Response) error {
	return c.CheckJSON(path, resp)
}

// HostPort returns a URL's host:port, with the scheme's default port filled in, for matching
// against peer-advertise addresses.
func HostPort(raw string) string { return apiclient.HostPort(raw) }

// Evidence is where client evidence is read (pkg/clientevidence): the kubeconfig's own server
// (not one apiserver of the plane), through which the cluster-wide lists are read alike, with
// these options' credentials, timeout, warnings and clock.
func (o Options) Evidence() clientevidence.Options {
	return clientevidence.Options{
		Connect: func(red *redact.Redactor) (*apiclient.Client, error) {
			cfg, err := o.baseConfig()
			if err != nil {
				return nil, err
			}
			base, err := apiclient.NormalizeBase(cfg.Host)
			if err != nil {
				return nil, err
			}
			return apiclient.New(cfg, base, apiclient.Options{Timeout: o.timeout(), Redactor: red})
		},
		Warn: o.Warn,
		Now:  o.now,
	}
}
