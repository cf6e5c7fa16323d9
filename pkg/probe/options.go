package probe

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Defaults of Options.
const (
	DefaultNamespace      = "default"
	DefaultConcurrency    = 4
	DefaultQPS            = 10
	DefaultRequestTimeout = 10 * time.Second
	DefaultTotalTimeout   = 5 * time.Minute
	// AbsentNamePrefix starts the name of the object the get requests ask for. The rest is
	// random, so the object cannot exist.
	AbsentNamePrefix = "mvpctl-probe-absent-"
	// WatchTimeoutSeconds is the watch requests' timeoutSeconds.
	WatchTimeoutSeconds = 1
)

// Verbs the probe sends, in result order.
const (
	VerbList   = "list"
	VerbGet    = "get"
	VerbWatch  = "watch"
	VerbCreate = "create" // only with Options.WriteDryRun, always with dryRun=All
)

// Options configure a probe run. Only Config is required.
type Options struct {
	// Config holds the credentials and TLS settings (the kubeconfig's) used for every server.
	// Its Host is the kubeconfig's server: its host is one of the TLS server names tried.
	Config *rest.Config
	// ConfigFor, when set, returns the config for one server instead (one kubeconfig context
	// per apiserver); nil from it means Config.
	ConfigFor func(srv *snapshot.Server) (*rest.Config, error)

	// Servers limits the probe to these servers (names or IDs); empty means every reachable
	// server of the snapshot.
	Servers []string
	// Selection chooses the group/version/resources.
	Selection Selection
	// Namespace is where namespaced resources are listed (DefaultNamespace when empty).
	Namespace string
	// WriteDryRun adds a create with dryRun=All of a minimal object. Nothing else ever writes.
	WriteDryRun bool
	// ProxiedHeader is the loop-prevention header sent with the forced-local requests
	// (ForcedLocalHeader when empty). Every release 1.28–1.37 uses x-kubernetes-peer-proxied.
	ProxiedHeader string
	// AbsentName is the object name the get requests ask for (random when empty).
	AbsentName string

	// Concurrency bounds the measurements in flight (DefaultConcurrency when zero).
	Concurrency int
	// QPS bounds the requests sent per second, all servers together (DefaultQPS when zero).
	QPS float64
	// RequestTimeout bounds each request (DefaultRequestTimeout when zero).
	RequestTimeout time.Duration
	// TotalTimeout bounds the whole run (DefaultTotalTimeout when zero); when it is reached the
	// run stops as on cancellation, with what was measured.
	TotalTimeout time.Duration
	// NoMetrics skips reading /metrics before and after.
	NoMetrics bool

	// Progress receives short progress lines; Warn receives problems that do not stop the run.
	// Both are called from one goroutine at a time.
	Progress func(string)
	Warn     func(string)
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Selection chooses the group/version/resources to probe. By default: every GVR not served by
// every reachable server, plus one GVR per group that every server serves.
type Selection struct {
	// Resources select GVRs by resource ("jobs"), resource.group ("jobs.batch"),
	// group/version/resource ("batch/v1/jobs", "v1/pods") or kind ("Job").
	Resources []string
	// Groups select GVRs by group ("batch"; "core" or "" for the core group).
	Groups []string
	// All selects every GVR.
	All bool
}

// Filter is the selection's --resource and --group filter.
func (s Selection) Filter() snapshot.GVRFilter {
	return snapshot.GVRFilter{Resources: s.Resources, Groups: s.Groups}
}

// String describes the selection for reports.
func (s Selection) String() string {
	switch {
	case !s.Filter().Empty():
		return s.Filter().String()
	case s.All:
		return "all"
	}
	return "default: GVRs not served by every server, plus one shared GVR per group"
}

func (o *Options) withDefaults() (Options, error) {
	c := *o
	if c.Config == nil && c.ConfigFor == nil {
		return c, errors.New("no client config: set Options.Config")
	}
	if c.Namespace == "" {
		c.Namespace = DefaultNamespace
	}
	if errs := validation.IsDNS1123Label(c.Namespace); len(errs) > 0 {
		return c, fmt.Errorf("namespace %q: %s", c.Namespace, strings.Join(errs, "; "))
	}
	if c.ProxiedHeader == "" {
		c.ProxiedHeader = ForcedLocalHeader
	}
	if !validHeaderName(c.ProxiedHeader) {
		return c, fmt.Errorf("--proxied-header %q is not an HTTP header name", c.ProxiedHeader)
	}
	if c.AbsentName == "" {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return c, err
		}
		c.AbsentName = AbsentNamePrefix + hex.EncodeToString(b[:])
	}
	switch {
	case c.Concurrency == 0:
		c.Concurrency = DefaultConcurrency
	case c.Concurrency < 0:
		return c, fmt.Errorf("concurrency must be at least 1, got %d", c.Concurrency)
	}
	switch {
	case c.QPS == 0:
		c.QPS = DefaultQPS
	case c.QPS < 0:
		return c, fmt.Errorf("qps must be positive, got %g", c.QPS)
	}
	switch {
	case c.RequestTimeout == 0:
		c.RequestTimeout = DefaultRequestTimeout
	case c.RequestTimeout < 0:
		return c, fmt.Errorf("request timeout must be positive, got %s", c.RequestTimeout)
	}
	if c.RequestTimeout <= WatchTimeoutSeconds*time.Second {
		return c, fmt.Errorf("request timeout %s is too short: the watch requests take %ds", c.RequestTimeout, WatchTimeoutSeconds)
	}
	switch {
	case c.TotalTimeout == 0:
		c.TotalTimeout = DefaultTotalTimeout
	case c.TotalTimeout < 0:
		return c, fmt.Errorf("total timeout must be positive, got %s", c.TotalTimeout)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c, nil
}

// validHeaderName reports whether s is an RFC 7230 token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 127 || !(r == '-' || r == '_' || r == '.' || r == '!' || r == '#' || r == '$' || r == '%' || r == '&' ||
			r == '\'' || r == '*' || r == '+' || r == '^' || r == '`' || r == '|' || r == '~' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')) {
			return false
		}
	}
	return true
}
