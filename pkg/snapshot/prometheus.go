package snapshot

import "time"

// PrometheusEvidence is what a Prometheus (or Thanos Query, Mimir: the same query API) kept
// of the apiservers' request counters over a window: client evidence that survives the
// apiservers' restarts, recorded like their own counters (Server.Requests).
type PrometheusEvidence struct {
	// URL is the query API's base, without credentials.
	URL string `json:"url"`
	// Selector is the label matchers added to every query (`cluster="prod-eu-1"`), "" for none.
	Selector string `json:"selector,omitempty"`
	// ReadAt is when the queries ran: the end of the span.
	ReadAt time.Time `json:"readAt"`
	// WindowSeconds is the look-back asked for.
	WindowSeconds int64 `json:"windowSeconds"`
	// OldestSample is the oldest sample of apiserver_request_total held in the window: the
	// start of the span the evidence covers (later than ReadAt − window when Prometheus holds
	// less). Nil when no sample was found.
	OldestSample *time.Time `json:"oldestSample,omitempty"`
	// Error says why the read failed or is partial (unreachable, 401, past a bound, a
	// selector matching nothing); Counts and Deprecated then say nothing.
	Error string `json:"error,omitempty"`
	// Counts are, per apiserver instance, GVR, subresource and verb, the largest count any
	// sample in the window held: a non-zero one is a client (increase() misses a series that
	// first appears already counting).
	Counts []PrometheusCount `json:"counts,omitempty"`
	// Deprecated are the deprecated APIs some apiserver reported being asked for in the
	// window (apiserver_requested_deprecated_apis).
	Deprecated []DeprecatedRequest `json:"deprecated,omitempty"`
}

// PrometheusCount is one RequestCount as Prometheus kept it, of one apiserver instance ("" when
// the series have no instance label).
type PrometheusCount struct {
	Instance string `json:"instance,omitempty"`
	RequestCount
}

// DeprecatedRequest is a deprecated API an apiserver was asked for, with the release that
// removes it.
type DeprecatedRequest struct {
	Group          string `json:"group,omitempty"`
	Version        string `json:"version"`
	Resource       string `json:"resource"`
	Subresource    string `json:"subresource,omitempty"`
	RemovedRelease string `json:"removedRelease,omitempty"`
}

// GVR is the request's group/version/resource.
func (d DeprecatedRequest) GVR() GVR {
	return GVR{Group: d.Group, Version: d.Version, Resource: d.Resource}
}

// Span is the time the evidence covers: from the oldest sample held to the read; false when
// unknown or negative.
func (p *PrometheusEvidence) Span() (time.Duration, bool) {
	if p == nil || p.OldestSample == nil || p.OldestSample.After(p.ReadAt) {
		return 0, false
	}
	return p.ReadAt.Sub(*p.OldestSample), true
}
