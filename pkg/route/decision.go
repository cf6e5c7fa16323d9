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
	unavailable string
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
	// Unavailable says which 503: UnavailableEndpoint or UnavailableTransport.
	Unavailable string `json:"unavailable,omitempty"`
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
	// Alternatives lists other outcomes the random peer choice can produce.
	Alternatives []string `json:"alternatives,omitempty"`
	// Causes are why the server has not learned that a peer serves the GVR, most likely first,
	// with how to confirm each; set when that is why the answer is 404.
	Causes []mvp.Cause `json:"causes,omitempty"`
}

// Cell is the short form used in routing tables: local, proxy→NAME, 404, 503.
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
		return "503"
	}
	return string(d.Outcome)
}

func status(code int) *int { return &code }

// steps accumulates numbered steps.
type steps struct{ list []Step }

func (s *steps) add(format string, args ...any) {
	s.list = append(s.list, Step{N: len(s.list) + 1, Text: fmt.Sprintf(format, args...)})
}
