package snapshot

import (
	"fmt"
	"strings"
)

// LBConfidenceThreshold is the confidence that no server class was missed below which a
// snapshot sampled through a load balancer is doubtful (LBSampling.Doubts): commands then
// give no success exit.
const LBConfidenceThreshold = 0.99

// Sample bounds for --lb-samples.
const (
	LBMinSamples     = 1
	LBMaxSamples     = 1000
	LBDefaultSamples = 30
)

// LBSampling records how a snapshot was taken through one address (docs/snapshot.md,
// "Through a load balancer"): n samples, each one fresh connection, grouped into server
// classes by version and configuration, matched against the identity leases.
type LBSampling struct {
	// Address is the one URL every sample was read through (no credentials).
	Address string `json:"address"`
	// Samples is how many samples were taken: one fresh TCP connection each.
	Samples int `json:"samples"`
	// Answered is how many samples gave a complete observation; they alone are classified.
	Answered int `json:"answered"`
	// Failed counts the other samples by what went wrong (a sample that failed mid-way is
	// counted here, never dropped).
	Failed []LBFailure `json:"failed,omitempty"`
	// LeasesRead is false when the identity leases could not be listed.
	LeasesRead bool `json:"leasesRead"`
	// Leases is the number of live identity leases (renewed within the last 30 s): the number
	// of apiservers the confidence is computed for.
	Leases int `json:"leases"`
	// LeasesSeen is how many of those leases a sample named: its /api
	// serverAddressByClientCIDRs is the lease's peer-advertise address.
	LeasesSeen int `json:"leasesSeen"`
	// Classes is the number of server classes found.
	Classes int `json:"classes"`
	// Confidence is the probability, under Model, that no server class was missed. Nil when it
	// cannot be computed (no identity lease read).
	Confidence *float64 `json:"confidence,omitempty"`
	// Model says how Confidence was computed.
	Model string `json:"model"`
	// Doubts are the reasons the classes may not be the whole control plane (confidence below
	// LBConfidenceThreshold, more classes than leases, failed samples, ...). Any doubt makes
	// a command's result partial.
	Doubts []string `json:"doubts,omitempty"`
}

// LBFailure is one kind of failed sample and how many samples failed that way.
type LBFailure struct {
	Error string `json:"error"`
	Count int    `json:"count"`
}

// ServerLB says which server class a server of a load-balanced snapshot stands for.
type ServerLB struct {
	// Class names the server class ("class-1"); members of one class share everything the
	// routing rules read.
	Class string `json:"class"`
	// Configuration is the class key in words: version, discovery ETags, proxy configuration.
	Configuration string `json:"configuration"`
	// Samples is how many answered samples fell in the class; Share is Samples / Answered.
	Samples int     `json:"samples"`
	Share   float64 `json:"share"`
	// EstimatedServers is how many apiservers the class is taken to hold (its members).
	EstimatedServers int `json:"estimatedServers"`
	// Identified is true when this member's identity lease was named by a sample of the class;
	// false when the member is an estimate (its ID is then its name).
	Identified bool `json:"identified"`
}

// Complete reports whether the sampling saw every apiserver: every live identity lease was
// named by a sample, and nothing is in doubt. Only then is a result from it not an estimate.
func (lb *LBSampling) Complete() bool {
	return lb != nil && len(lb.Doubts) == 0 && lb.LeasesRead && lb.Leases > 0 && lb.LeasesSeen == lb.Leases
}

// Incomplete says why a sampling is not complete ("" when it is): the doubts, or how many
// identity leases were not seen.
func (lb *LBSampling) Incomplete() string {
	switch {
	case lb == nil || lb.Complete():
		return ""
	case len(lb.Doubts) > 0:
		return "sampled through a load balancer: " + strings.Join(lb.Doubts, "; ")
	}
	return fmt.Sprintf("sampled through a load balancer: %d of %d live identity leases seen, the server classes are estimated from samples", lb.LeasesSeen, lb.Leases)
}

// Summary is the one line that says, first, what a load-balanced snapshot's outcomes are.
func (lb *LBSampling) Summary() string {
	conf := "no confidence can be given"
	if lb.Confidence != nil {
		conf = fmt.Sprintf("confidence %s that no class was missed", FormatConfidence(*lb.Confidence))
	}
	how := "estimated from samples"
	if lb.Complete() {
		how = "every identity lease was seen"
	}
	classes := "classes"
	if lb.Classes == 1 {
		classes = "class"
	}
	return fmt.Sprintf("sampled through the load balancer %s: outcomes are per server class, %s (%d %s in %d of %d samples, %d live identity leases, %d seen; %s)",
		lb.Address, how, lb.Classes, classes, lb.Answered, lb.Samples, lb.Leases, lb.LeasesSeen, conf)
}

// FormatConfidence prints a confidence without rounding a doubt away: 0.999996 is not "1".
func FormatConfidence(c float64) string {
	if c >= 1 {
		return "1"
	}
	s := fmt.Sprintf("%.6f", c)
	if s == "1.000000" {
		return ">0.999999"
	}
	return strings.TrimRight(strings.TrimRight(s, "0"), ".")
}

// validateLB checks the load-balancer fields: a server's LB needs the cluster's, shares are
// fractions.
func (s *Snapshot) validateLB() error {
	lb := s.Cluster.LB
	if lb != nil {
		if lb.Samples < 0 || lb.Answered < 0 || lb.Answered > lb.Samples {
			return fmt.Errorf("cluster.lb: answered %d of %d samples: want 0 <= answered <= samples", lb.Answered, lb.Samples)
		}
		if lb.Confidence != nil && (*lb.Confidence < 0 || *lb.Confidence > 1) {
			return fmt.Errorf("cluster.lb.confidence: %v is not a probability", *lb.Confidence)
		}
	}
	for i := range s.Servers {
		sl := s.Servers[i].LB
		if sl == nil {
			continue
		}
		field := fmt.Sprintf("servers[%d] (%s).lb", i, s.Servers[i].Name)
		if lb == nil {
			return fmt.Errorf("%s: set, but cluster.lb is not: a server class needs the sampling it came from", field)
		}
		if sl.Class == "" {
			return fmt.Errorf("%s.class: must be set", field)
		}
		if sl.Share < 0 || sl.Share > 1 {
			return fmt.Errorf("%s.share: %v is not a fraction", field, sl.Share)
		}
		if sl.Samples < 0 || sl.Samples > lb.Answered {
			return fmt.Errorf("%s.samples: %d, but %d samples answered", field, sl.Samples, lb.Answered)
		}
	}
	return nil
}
