package mvp

import (
	"net/http"
)

// Outcome is what a client meets on the server it sent a request to. Predictions (pkg/route)
// and observations (pkg/probe) use the same words (docs/behaviour.md §5).
type Outcome string

const (
	// Local: the server serves the GVR itself and its own handler answers.
	Local Outcome = "local"
	// Proxied: the request is forwarded to a peer, whose answer is passed back unchanged.
	Proxied Outcome = "proxied"
	// NotFound: the server's own chain answers 404 for a GVR it does not serve — for lack of a
	// peer, because the loop-prevention header was present, or because there is no filter.
	NotFound Outcome = "not-found"
	// Unavailable: the filter answers 503, or the server's own kube-aggregator does for an
	// aggregated APIService (see Unavailable503 for which one).
	Unavailable Outcome = "unavailable"
	// Unknown is for observations only: what was seen contradicts itself or is an error that
	// is not the apiserver's (a timeout, a 500). The apiserver never decides it.
	Unknown Outcome = "unknown"
)

// OutcomeKey is an outcome as predictions' alternatives and observations name it: local,
// proxied, not-found, or unavailable/<which 503> (unavailable/endpoint-resolution, …).
func OutcomeKey(o Outcome, unavailable Unavailable503) string {
	if o == Unavailable && unavailable != "" {
		return string(o) + "/" + string(unavailable)
	}
	return string(o)
}

// Unavailable503 says which 503: the filter's two (docs/behaviour.md §5.1), or the
// aggregator's two (aggregated.go, §16). Its value is the key's second part, as JSON writes it;
// the empty value is "not a 503".
type Unavailable503 string

const (
	// EndpointResolution: no candidate peer's address resolves (its 15 s etcd endpoint key is
	// gone): a Status, "Error getting ip and port info of the remote server while proxying".
	EndpointResolution Unavailable503 = "endpoint-resolution"
	// Transport: the chosen peer's address resolves but dialling it fails: text/plain
	// "error trying to reach service: ...".
	Transport Unavailable503 = "transport"
)

// Answer is an outcome with, for a 503, which one: an alternative a prediction allows
// besides its outcome (a random peer choice, a crash window, the aggregator's next check).
type Answer struct {
	Outcome     Outcome
	Unavailable Unavailable503
}

// Key is the answer as predictions' alternatives and observations name it (OutcomeKey).
func (a Answer) Key() string { return OutcomeKey(a.Outcome, a.Unavailable) }

// Status is the HTTP status of an answer the apiserver gives itself: 404 for not-found, 503
// for unavailable; 0 for local and proxied, whose status is the serving handler's.
func (a Answer) Status() int {
	switch a.Outcome {
	case NotFound:
		return http.StatusNotFound
	case Unavailable:
		return http.StatusServiceUnavailable
	}
	return 0
}
