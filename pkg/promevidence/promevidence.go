// Package promevidence reads client evidence from a Prometheus that scrapes the apiservers
// (or Thanos Query, Mimir: the same query API): what apiserver_request_total counted over a
// window, across the apiservers' restarts, and the span the samples held actually cover.
package promevidence

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/config"
	"github.com/prometheus/common/model"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Bounds of one read, when Options leaves them zero.
const (
	DefaultTimeout  = 30 * time.Second
	DefaultMaxBytes = 16 << 20
	// spanPoints is how many points the range query that finds the oldest sample asks for:
	// the span is known to within window/spanPoints, never longer than held.
	spanPoints = 240
)

// DeprecatedAPIsMetric is the gauge an apiserver sets to 1 for each deprecated API it was
// asked for, labelled with the release that removes it.
const DeprecatedAPIsMetric = "apiserver_requested_deprecated_apis"

// Options say which Prometheus to read and how.
type Options struct {
	// URL is the query API's base (http://prometheus:9090, a Thanos Query, a Mimir
	// /prometheus prefix).
	URL string
	// HTTP is the client configuration Prometheus tools use (bearer token file, CA, client
	// certificate, basic auth, proxy), as in a scrape config's HTTP fields.
	HTTP config.HTTPClientConfig
	// Selector is label matchers added to every query (`cluster="prod-eu-1"`): for a
	// Prometheus that holds several clusters.
	Selector string
	// Window is how far back to look.
	Window time.Duration
	// Timeout bounds the whole read; MaxBytes each answer (DefaultTimeout, DefaultMaxBytes
	// when zero).
	Timeout  time.Duration
	MaxBytes int64
	// Now is the read's time (time.Now when nil).
	Now func() time.Time
	// RoundTripper replaces the one built from HTTP (tests).
	RoundTripper http.RoundTripper
}

// matcher is one label matcher: name, operator, a double-quoted value.
var matcher = regexp.MustCompile(`^\s*[a-zA-Z_][a-zA-Z0-9_]*\s*(=|!=|=~|!~)\s*"(?:[^"\\]|\\.)*"\s*$`)

// ValidateSelector checks that s is label matchers separated by commas, as inside {} in
// PromQL: `cluster="prod-eu-1",env=~"prod.*"`.
func ValidateSelector(s string) error {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	for _, m := range splitMatchers(s) {
		if !matcher.MatchString(m) {
			return fmt.Errorf("%q is not a label matcher (name=\"value\", !=, =~ or !~)", strings.TrimSpace(m))
		}
	}
	return nil
}

// splitMatchers splits s at the commas outside double-quoted values.
func splitMatchers(s string) []string {
	var out []string
	quoted, escaped, start := false, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case escaped:
			escaped = false
		case c == '\\' && quoted:
			escaped = true
		case c == '"':
			quoted = !quoted
		case c == ',' && !quoted:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// Queries are the PromQL mvpctl runs, for a selector and a window: docs/ci.md shows them.
type Queries struct {
	// Counts: per instance, GVR, subresource and verb, the sum over series of the largest
	// value each held in the window. Any non-zero sample is a client: increase() alone gives 0
	// for a series that first appears already counting (requests before its first scrape).
	Counts string
	// Deprecated: the deprecated APIs asked for in the window.
	Deprecated string
	// Held: how many request series exist at each point of the window (a range query): the
	// first point with a value is the oldest sample held.
	Held string
}

// QueriesFor are the queries for selector and window.
func QueriesFor(selector string, window time.Duration) Queries {
	sel := ""
	if s := strings.TrimSpace(selector); s != "" {
		sel = "," + s
	}
	w := model.Duration(window).String()
	return Queries{
		Counts: fmt.Sprintf(`sum by (instance, group, version, resource, subresource, verb) (max_over_time(%s{resource!=""%s}[%s])) > 0`, mvp.RequestTotalMetric, sel, w),
		Deprecated: fmt.Sprintf(`max by (group, version, resource, subresource, removed_release) (max_over_time(%s{resource!=""%s}[%s])) > 0`,
			DeprecatedAPIsMetric, sel, w),
		Held: fmt.Sprintf(`count(%s{resource!=""%s})`, mvp.RequestTotalMetric, sel),
	}
}

// Read queries the Prometheus of o. A read that fails is returned with Error set (one line
// naming the cause) and no counts: evidence not read, never a pass.
func Read(ctx context.Context, o Options) *snapshot.PrometheusEvidence {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	// Prometheus keeps times in milliseconds and rounds the query's to them: a read at a
	// finer time would find its first point a fraction after the window's start, and the span
	// held a fraction short of the window.
	ev := &snapshot.PrometheusEvidence{URL: PublicURL(o.URL), Selector: strings.TrimSpace(o.Selector), ReadAt: now().UTC().Truncate(time.Millisecond), WindowSeconds: int64(o.Window / time.Second)}
	if err := read(ctx, o, ev); err != nil {
		ev.Error = oneLine(err, o)
		ev.Counts, ev.Deprecated = nil, nil
	}
	return ev
}

func read(ctx context.Context, o Options, ev *snapshot.PrometheusEvidence) error {
	if o.Window <= 0 {
		return errors.New("no window to look back over")
	}
	if err := ValidateSelector(o.Selector); err != nil {
		return err
	}
	timeout, maxBytes := o.Timeout, o.MaxBytes
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	rt := o.RoundTripper
	if rt == nil {
		var err error
		if rt, err = config.NewRoundTripperFromConfig(o.HTTP, "mvpctl"); err != nil {
			return fmt.Errorf("HTTP client configuration: %w", err)
		}
	}
	client, err := api.NewClient(api.Config{Address: o.URL, RoundTripper: boundedTripper{rt, maxBytes}})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	q := v1.NewAPI(client)
	queries := QueriesFor(o.Selector, o.Window)
	at := ev.ReadAt

	step := o.Window / spanPoints
	if step < time.Second {
		step = time.Second
	}
	held, _, err := q.QueryRange(ctx, queries.Held, v1.Range{Start: at.Add(-o.Window), End: at, Step: step})
	if err != nil {
		return err
	}
	oldest, ok := oldestPoint(held)
	if !ok {
		if ev.Selector != "" {
			return fmt.Errorf("no %s series matches {%s} in the last %s: check --prometheus-selector", mvp.RequestTotalMetric, ev.Selector, model.Duration(o.Window))
		}
		return fmt.Errorf("no %s series in the last %s: does this Prometheus scrape the apiservers?", mvp.RequestTotalMetric, model.Duration(o.Window))
	}
	ev.OldestSample = &oldest

	counts, _, err := q.Query(ctx, queries.Counts, at)
	if err != nil {
		return err
	}
	if ev.Counts, err = countsOf(counts); err != nil {
		return err
	}
	dep, _, err := q.Query(ctx, queries.Deprecated, at)
	if err != nil {
		return err
	}
	ev.Deprecated = deprecatedOf(dep)
	return nil
}

// oldestPoint is the time of the first point with a value of a range query's answer.
func oldestPoint(v model.Value) (time.Time, bool) {
	m, ok := v.(model.Matrix)
	if !ok {
		return time.Time{}, false
	}
	var oldest time.Time
	found := false
	for _, s := range m {
		for _, p := range s.Values {
			if t := p.Timestamp.Time().UTC(); !found || t.Before(oldest) {
				oldest, found = t, true
			}
			break
		}
	}
	return oldest, found
}

// countsOf are the counts of an instant query's answer, each checked as a count
// (snapshot.CountOf): a value that is not one refuses the read, naming it.
func countsOf(v model.Value) ([]snapshot.PrometheusCount, error) {
	vec, ok := v.(model.Vector)
	if !ok {
		return nil, fmt.Errorf("the counts query answered a %s, not a vector", v.Type())
	}
	var out []snapshot.PrometheusCount
	for _, s := range vec {
		l := s.Metric
		n, err := snapshot.CountOf(float64(s.Value))
		if err != nil {
			return nil, fmt.Errorf("%s%s: %w", mvp.RequestTotalMetric, l, err)
		}
		if n == 0 || l["resource"] == "" || l["version"] == "" {
			continue
		}
		out = append(out, snapshot.PrometheusCount{Instance: string(l["instance"]), RequestCount: snapshot.RequestCount{
			Group: string(l["group"]), Version: string(l["version"]), Resource: string(l["resource"]), Subresource: string(l["subresource"]), Verb: string(l["verb"]), Count: n}})
	}
	sort.Slice(out, func(i, j int) bool { return countLess(out[i], out[j]) })
	return out, nil
}

func countLess(a, b snapshot.PrometheusCount) bool {
	return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Version, b.Version), strings.Compare(a.Resource, b.Resource),
		strings.Compare(a.Subresource, b.Subresource), strings.Compare(a.Verb, b.Verb), strings.Compare(a.Instance, b.Instance)) < 0
}

func deprecatedOf(v model.Value) []snapshot.DeprecatedRequest {
	vec, _ := v.(model.Vector)
	var out []snapshot.DeprecatedRequest
	for _, s := range vec {
		l := s.Metric
		if l["resource"] == "" || l["version"] == "" {
			continue
		}
		out = append(out, snapshot.DeprecatedRequest{Group: string(l["group"]), Version: string(l["version"]), Resource: string(l["resource"]),
			Subresource: string(l["subresource"]), RemovedRelease: string(l["removed_release"])})
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].GVR().String()+"/"+out[i].Subresource < out[j].GVR().String()+"/"+out[j].Subresource
	})
	return out
}

// PublicURL is u without credentials, query or fragment: what a report may print.
func PublicURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(an unparsable URL)"
	}
	p.User, p.RawQuery, p.Fragment = nil, "", ""
	return p.String()
}

// oneLine words a failed read in one line naming the cause.
func oneLine(err error, o Options) string {
	var apiErr *v1.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		t := o.Timeout
		if t <= 0 {
			t = DefaultTimeout
		}
		return fmt.Sprintf("no answer within %s", t)
	case errors.Is(err, errTooLarge):
		return err.Error()
	case errors.As(err, &apiErr):
		msg := strings.Join(strings.Fields(apiErr.Msg), " ")
		for _, code := range []string{"401", "403"} {
			if strings.Contains(msg, code) {
				return "HTTP " + code + ": check the credentials (--prometheus-config)"
			}
		}
		return string(apiErr.Type) + ": " + msg
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}

var errTooLarge = errors.New("answer past its bound")

// boundedTripper fails an answer whose body passes max bytes.
type boundedTripper struct {
	rt  http.RoundTripper
	max int64
}

func (b boundedTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > b.max {
		resp.Body.Close()
		return nil, fmt.Errorf("%w of %d bytes (%d announced)", errTooLarge, b.max, resp.ContentLength)
	}
	resp.Body = &boundedBody{rc: resp.Body, left: b.max, max: b.max}
	return resp, nil
}

type boundedBody struct {
	rc   io.ReadCloser
	left int64
	max  int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("%w: more than %d bytes", errTooLarge, b.max)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left <= 0 && err == nil {
		// One byte more tells a body of exactly max bytes from a longer one.
		var one [1]byte
		if m, _ := b.rc.Read(one[:]); m > 0 {
			return n, fmt.Errorf("%w: more than %d bytes", errTooLarge, b.max)
		}
	}
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }
