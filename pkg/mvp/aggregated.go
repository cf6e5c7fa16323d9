package mvp

import (
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// The two 503s of kube-aggregator, which answers for an aggregated APIService's group/version
// inside every kube-apiserver (docs/behaviour.md §16). They are Unavailable outcomes like the
// peer proxy's, but the server's own: no peer is involved.
const (
	// APIServiceUnavailable: the APIService is not Available in the server's informer (or its
	// Service cannot be resolved): text/plain "service unavailable", nothing dialled.
	APIServiceUnavailable Unavailable503 = "apiservice-unavailable"
	// BackendUnreachable: the APIService is still Available but its backend does not answer:
	// text/plain "error trying to reach service: dial tcp …", word for word the peer proxy's
	// transport 503; only the path (an APIService group/version) tells them apart.
	BackendUnreachable Unavailable503 = "backend-unreachable"
)

// AggregatorUnavailableMessage is the whole body of the aggregator's APIServiceUnavailable.
const AggregatorUnavailableMessage = "service unavailable"

// AggregatorUnavailableConsequence is what an unavailable APIService means for clients.
const AggregatorUnavailableConsequence = "every apiserver answers its requests with its own 503 \"service unavailable\" (never a peer's), and kubectl api-resources fails for every client until it is available"

// AvailabilityRecheck is how long an Available=True APIService whose backend died can keep
// that condition: the availability controller's 30 s resync plus its 6 s check guard.
const AvailabilityRecheck = "36 s"

// AggregatorAnswer is what a server's own kube-aggregator answers for a request to an aggregated
// APIService's group/version (resources and /apis/<group>/<version> alike).
type AggregatorAnswer struct {
	Outcome     Outcome
	Unavailable Unavailable503
	// AlsoPossible are the answers (unavailable/backend-unreachable, ...) the aggregator can
	// also give until its next availability check (docs/behaviour.md §16, the crash window).
	AlsoPossible []Answer
}

// AnswerOf is the aggregator's rule (kube-aggregator handler_proxy.go, every version mvpctl
// models): Available=True → the backend's answer, whatever its status and however long it
// takes (a 500, or a 503 Status, passed through unchanged: local, the server's own handler
// chain; seen on v1.36.3 and v1.37.1, docs/behaviour.md §16), or
// its dial-error 503 when the backend stopped answering since the last check and then, from
// that check on, "service unavailable"; not Available (False, Unknown, or no condition yet) →
// "service unavailable" at once, whatever the reason.
func AnswerOf(a snapshot.APIService) AggregatorAnswer {
	if a.IsAvailable() {
		return AggregatorAnswer{Outcome: Local, AlsoPossible: []Answer{
			{Outcome: Unavailable, Unavailable: BackendUnreachable}, {Outcome: Unavailable, Unavailable: APIServiceUnavailable}}}
	}
	return AggregatorAnswer{Outcome: Unavailable, Unavailable: APIServiceUnavailable}
}

// APIServiceConditionText is the Available condition in one phrase:
// "Available=False FailedDiscoveryCheck: failing or missing response from …".
func APIServiceConditionText(a snapshot.APIService) string {
	c := a.Available
	if c == nil {
		return "no Available condition yet"
	}
	s := "Available=" + c.Status
	if c.Reason != "" {
		s += " " + c.Reason
	}
	if c.Message != "" {
		s += ": " + c.Message
	}
	return s
}
