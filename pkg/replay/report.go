package replay

import (
	"fmt"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// Report counts replayed requests by outcome, per step, GVR and user agent.
type Report struct {
	Source string `json:"source"`
	Format string `json:"format"`
	// Requests counts the requests replayed; NonResource those that are never routed
	// (discovery, health); Unparsable those the apiserver's parser rejects.
	Requests    int64 `json:"requests"`
	NonResource int64 `json:"nonResource"`
	Unparsable  int64 `json:"unparsable"`
	// Malformed counts unreadable lines (with a few examples); Skipped audit events of
	// non-final stages.
	Malformed int64 `json:"malformed"`
	// From and To are the earliest and latest requestReceivedTimestamp of the events read
	// (audit logs; absent for request lists, which have no times): the span the traffic
	// covers, which says how much a "no client of it" is worth.
	From              *time.Time `json:"from,omitempty"`
	To                *time.Time `json:"to,omitempty"`
	MalformedExamples []string   `json:"malformedExamples,omitempty"`
	Skipped           int64      `json:"skippedStages,omitempty"`
	// ProxiedCopies counts audit events whose audit ID an earlier event of the log has: a
	// request one server proxied to a peer is logged by both (a log merged from several
	// servers), and is replayed once.
	ProxiedCopies int64 `json:"proxiedCopies,omitempty"`
	// Proxied joins the two events of each proxied request (nil when no audit ID repeats).
	Proxied *ProxiedReport `json:"proxied,omitempty"`

	Steps      []StepTraffic      `json:"steps"`
	GVRs       []GVRTraffic       `json:"gvrs"`
	UserAgents []UserAgentTraffic `json:"userAgents"`
}

// StepTraffic is the outcome of every request on every reachable server at one step. A
// request sent through a load balancer lands on one server; AtRisk counts the requests that
// fail on at least one.
type StepTraffic struct {
	N      int                      `json:"n"`
	Step   string                   `json:"step"`
	ByServ map[string]OutcomeCounts `json:"servers"`
	AtRisk int64                    `json:"atRisk"`
}

// OutcomeCounts counts requests by outcome.
type OutcomeCounts struct {
	Local       int64 `json:"local"`
	Proxied     int64 `json:"proxied"`
	NotFound    int64 `json:"notFound"`
	Unavailable int64 `json:"unavailable"`
}

func (c *OutcomeCounts) addN(o mvp.Outcome, n int64) {
	switch o {
	case mvp.Local:
		c.Local += n
	case mvp.Proxied:
		c.Proxied += n
	case mvp.NotFound:
		c.NotFound += n
	case mvp.Unavailable:
		c.Unavailable += n
	}
}

// GVRTraffic is the traffic for one GVR. AtRisk counts its requests that work on a server at
// the start and fail on it at some step while some server serves the GVR (harm from the
// upgrade); AtRiskSteps names those steps. AlreadyFailing counts the requests that fail at
// such a step only on servers that answer them 404 or 503 at the start too: they fail today,
// with or without the upgrade; FailingAtStart names those servers.
type GVRTraffic struct {
	GVR            string   `json:"gvr"`
	Requests       int64    `json:"requests"`
	AtRisk         int64    `json:"atRisk"`
	AtRiskSteps    []int    `json:"atRiskSteps,omitempty"`
	AlreadyFailing int64    `json:"alreadyFailing,omitempty"`
	FailingAtStart []string `json:"failingAtStart,omitempty"`
	// Removed is true when the scenario ends with no server serving it.
	Removed bool `json:"removed,omitempty"`

	// agents counts its requests by user agent (Agents), for findings that name its clients.
	agents map[string]*UserAgentTraffic
}

// UserAgentTraffic is the traffic of one user agent.
type UserAgentTraffic struct {
	UserAgent string `json:"userAgent"`
	Requests  int64  `json:"requests"`
	// AtRisk counts its requests that fail on some server at some step.
	AtRisk int64 `json:"atRisk"`
}

// maxUserAgents bounds the user-agent table; further agents are counted as "<other>".
const maxUserAgents = 10000

// RequireReplayed refuses traffic that gave no request to replay: a verdict on zero requests
// would read as "the traffic is safe". It is an input error (the wrong file or format); nil
// traffic (none given) is no error.
func RequireReplayed(t *Report) error {
	if t == nil || t.Requests-t.NonResource-t.Unparsable > 0 {
		return nil
	}
	return fmt.Errorf("%s: no resource request to replay (%d non-resource, %d unparsable, %d malformed line(s), %d audit event(s) of other stages) — the wrong file, or --requests given an audit log (or the reverse)?",
		t.Source, t.NonResource, t.Unparsable, t.Malformed, t.Skipped)
}
