package apimetrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/mvpctl/mvpctl/internal/apiclient"
)

// ErrForbidden is a /metrics read the credentials are not allowed (401/403): the usual case
// without the RBAC of deploy/rbac, and not an error of the server.
var ErrForbidden = errors.New("not allowed to read /metrics")

// drainLimit bounds what is read of an unused body before closing it.
const drainLimit = 256 << 10

// Fetch reads /metrics through c (streamed: a big apiserver's is tens of MiB) and keeps the
// families asked for. Errors are one line; a 401/403 wraps ErrForbidden and names the RBAC.
func Fetch(ctx context.Context, c *apiclient.Client, families ...string) (Sample, error) {
	resp, err := c.Open(ctx, "/metrics", "text/plain")
	if err != nil {
		return nil, err
	}
	// Drained (up to a bound) before closing, so an HTTP/1.1 connection can carry the next
	// request: a caller sampling one apiserver per connection (discover's --via-lb) needs that.
	defer func() {
		io.CopyN(io.Discard, resp.Body, drainLimit)
		resp.Body.Close()
	}()
	switch {
	case resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusUnauthorized:
		return nil, fmt.Errorf("GET /metrics: HTTP %d: %w (grant get on nonResourceURLs [\"/metrics\"], see deploy/rbac)", resp.StatusCode, ErrForbidden)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("GET /metrics: HTTP %d", resp.StatusCode)
	}
	s, err := Parse(resp.Body, families...)
	if err != nil {
		return nil, fmt.Errorf("GET /metrics: %s", apiclient.OneLine(err.Error()))
	}
	return s, nil
}
