package discover

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/mvpctl/mvpctl/internal/apiclient"
)

// Readiness hooks that reveal the Mixed Version Proxy's configuration (docs/behaviour.md §1, §9).
const (
	// The proxy filter's hook: present only with the gate on and --peer-ca-file set.
	hookProxyHandler    = "mixed-version-proxy-handler"  // 1.33+
	hookProxyFilterSV   = "unknown-version-proxy-filter" // 1.28–1.32
	hookPeerEndpointRec = "peer-endpoint-reconciler-controller"
)

// readyz is what /readyz?verbose said.
type readyz struct {
	// read is false when the list could not be read; err says why.
	read  bool
	err   string
	ready bool            // the server answered 200: it is ready
	hooks map[string]bool // check name (without "poststarthook/") → passed
}

// readyzLine matches "[+]poststarthook/mixed-version-proxy-handler ok" and
// "[-]poststarthook/x failed: reason withheld".
var readyzLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[([+-])\](\S+)\s`) })

// fetchReadyz reads /readyz?verbose. A not-ready server answers 500 with the same list, so
// both codes are parsed. Failing to read it is not fatal: the evidence is then unknown.
func fetchReadyz(ctx context.Context, c *serverClient) readyz {
	const path = "/readyz?verbose"
	resp, err := c.get(ctx, path, "text/plain, */*")
	if err != nil {
		return readyz{err: errMsg(err)}
	}
	if resp.Code != http.StatusOK && resp.Code != http.StatusInternalServerError {
		return readyz{err: apiclient.StatusError(c.base, path, resp.Code, resp.ContentType, resp.Body).Short()}
	}
	if apiclient.IsHTML(resp.ContentType, resp.Body) {
		return readyz{err: apiclient.HTMLError(c.base, path, resp.Body).Short()}
	}
	r := parseReadyz(resp.Body)
	if len(r.hooks) == 0 {
		return readyz{err: "GET " + path + ": no checks listed"}
	}
	r.read = true
	r.ready = resp.Code == http.StatusOK
	return r
}

func parseReadyz(body []byte) readyz {
	r := readyz{hooks: map[string]bool{}}
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		m := readyzLine().FindStringSubmatch(sc.Text() + " ")
		if m == nil {
			continue
		}
		r.hooks[strings.TrimPrefix(m[2], "poststarthook/")] = m[1] == "+"
	}
	return r
}

// has reports whether the check is listed, passed or not.
func (r readyz) has(hook string) bool {
	_, ok := r.hooks[hook]
	return ok
}

func errMsg(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Short()
	}
	return apiclient.OneLine(err.Error())
}
