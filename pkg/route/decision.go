package route

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// Step is one numbered check of the decision procedure and what it found.
type Step struct {
	N    int    `json:"n"`
	Text string `json:"text"`
}

// Candidate is a peer the server could proxy the request to, and what would happen if the
// random choice fell on it.
type Candidate struct {
	Server string `json:"server"`
	ID     string `json:"id"`
	// Address is the peer-advertise address the request would be sent to.
	Address string `json:"address,omitempty"`
	// Resolves is false when the peer's endpoint lease is gone.
	Resolves bool `json:"resolves"`
	// Result is what the client gets when this peer is chosen.
	Result string `json:"result"`
	// Inferred is true when this peer is a candidate only because a reachable server's
	// peer-aggregated discovery lists the GVR (the peer itself could not be read).
	Inferred bool `json:"inferred,omitempty"`

	outcome     mvp.Outcome
	unavailable mvp.Unavailable503
	// peer404 is true when the peer lists the GVR in its /apis but does not serve it itself.
	peer404 bool
}

// Decision is the routing decision of one server for one request.
type Decision struct {
	Server   string      `json:"server"`
	ServerID string      `json:"serverID,omitempty"`
	Version  string      `json:"version"`
	Era      mvp.Era     `json:"era"`
	Outcome  mvp.Outcome `json:"outcome"`
	// Status is the HTTP status the decision itself produces: 404 for not-found, 503 for
	// unavailable; null for local and proxied, whose status is the serving handler's.
	Status *int `json:"status"`
	// NotFoundBody is the 404 the client reads, for a not-found answered by the server's own
	// handler chain: its shape changes with the version (mvp.LastResortNotFound).
	NotFoundBody *mvp.NotFoundBody `json:"notFoundBody,omitempty"`
	// Unavailable says which 503: UnavailableEndpoint or UnavailableTransport.
	Unavailable mvp.Unavailable503 `json:"unavailable,omitempty"`
	// Peers are the candidate peers' IDs (all of them; the apiserver picks one at random among
	// those whose address resolves).
	Peers      []string    `json:"peers"`
	Candidates []Candidate `json:"candidates,omitempty"`
	Reason     string      `json:"reason"`
	Steps      []Step      `json:"steps"`
	// Inferred is true when the outcome rests on inference rather than on what the servers
	// reported (an unreachable peer's resources taken from another server's peer-aggregated
	// discovery, or an unknown configuration assumed from the version's default).
	Inferred bool `json:"inferred"`
	// Alternatives lists, in words, other outcomes the random peer choice or the crash
	// window of a dead peer can produce.
	Alternatives []string `json:"alternatives,omitempty"`
	// AlsoPossible are the outcomes of Alternatives as keys (not-found,
	// unavailable/transport, ...): what an observation may show besides Outcome.
	AlsoPossible []string `json:"alsoPossible,omitempty"`
	// AlsoAnswers are AlsoPossible as typed answers, what code compares (their HTTP status).
	AlsoAnswers []mvp.Answer `json:"-"`
	// Causes are why the server has not learned that a peer serves the GVR, most likely first,
	// with how to confirm each; set when that is why the answer is 404.
	Causes []mvp.Cause `json:"causes,omitempty"`
	// Hazards are what threatens the server itself, whatever the request: a 1.33/1.34 server
	// that exits at its next peer-discovery rebuild (docs/behaviour.md §11.2). Explanations
	// only; routing tables leave them out.
	Hazards []string `json:"hazards,omitempty"`
	// Timeline is every coming switch of the answer while the crash of a peer unfolds: its
	// endpoint key's expiry, its peers' rebuild (Switch). Explanations only.
	Timeline []Switch `json:"timeline,omitempty"`
	// APIService is set when the request is for an aggregated APIService's group/version: the
	// server's own kube-aggregator answers it (docs/behaviour.md §16).
	APIService *APIServiceRef `json:"apiService,omitempty"`

	// Plain is the decision in operator language, for explain's text and table output. It is
	// not part of the Explanation contract.
	Plain Plain `json:"-"`
}

// Plain is a decision for the people who run the apiservers: the answer in plain words, the
// rules that led to it with the Kubernetes versions they come from, and what would make a 404
// or 503 succeed. It names servers, never eras or identities.
type Plain struct {
	// Answer is what the client gets and why, in one line: "proxied to kas-a — kas-b does not
	// serve batch/v1 itself; kas-a does".
	Answer string
	Steps  []PlainStep
	// WhyNot says what would make a 404 or 503 succeed; empty otherwise.
	WhyNot []string
	// FilterInstalled is whether the server's proxy filter is in its handler chain.
	FilterInstalled bool
	// ProxiedTo names the peers the request may be forwarded to (resolvable, answering).
	ProxiedTo []string
	// Alternatives are Decision.Alternatives in plain words.
	Alternatives []string
	// TimelineIntro and Timeline are Decision.Timeline in plain words: what follows the crash of
	// which peers, then one line per switch.
	TimelineIntro string
	Timeline      []string
}

// PlainStep is one rule applied to the request.
type PlainStep struct {
	Text string
	// Rule is the rule of the Mixed Version Proxy the step applies; "" for a plain fact.
	Rule mvp.Rule
}

// String is the step followed by the versions its rule holds for, in parentheses.
func (s PlainStep) String() string {
	if v := s.Rule.Versions(); v != "" {
		return s.Text + " (" + v + ")"
	}
	return s.Text
}

// Outcome is what the client meets when this peer is chosen: proxied (the peer serves it),
// not-found (the peer answers 404: it does not serve the GVR itself), unavailable (the peer
// does not answer, or its address does not resolve).
func (c Candidate) Outcome() mvp.Outcome {
	switch {
	case !c.Resolves || c.outcome == mvp.Unavailable:
		return mvp.Unavailable
	case c.peer404:
		return mvp.NotFound
	}
	return mvp.Proxied
}

// PeerName is a candidate peer as people know it: its server name, or its identity when the
// snapshot does not know the server.
func (c Candidate) PeerName() string {
	if c.Server != "" {
		return c.Server
	}
	return c.ID
}

// Cell is the short form used in routing tables: local, proxy→NAME, 404, 503, or the
// aggregator's own 503s (UnavailableCell).
func (d Decision) Cell() string {
	switch d.Outcome {
	case mvp.Local:
		return "local"
	case mvp.Proxied:
		var names []string
		for _, c := range d.Candidates {
			if c.Resolves && c.outcome == mvp.Proxied {
				names = append(names, c.Server)
			}
		}
		return "proxy→" + strings.Join(names, ",")
	case mvp.NotFound:
		return "404"
	case mvp.Unavailable:
		return UnavailableCell(d.Unavailable)
	}
	return string(d.Outcome)
}

func status(code int) *int { return &code }

// steps accumulates numbered steps, and the same decision in plain words (Router.word).
type steps struct {
	list  []Step
	plain []PlainStep
}

// say adds a plain step applying rule.
func (s *steps) say(rule mvp.Rule, format string, args ...any) {
	s.plain = append(s.plain, PlainStep{Text: fmt.Sprintf(format, args...), Rule: rule})
}

func (s *steps) add(format string, args ...any) {
	s.list = append(s.list, Step{N: len(s.list) + 1, Text: fmt.Sprintf(format, args...)})
}

// Split returns the answer's two halves: what the client gets ("proxied to kas-a") and why
// ("kas-b does not serve batch/v1 itself; kas-a does").
func (p Plain) Split() (what, why string) {
	what, why, _ = strings.Cut(p.Answer, " — ")
	return what, why
}
