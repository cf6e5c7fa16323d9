package probe

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/report"
)

// Result is a probe's result: findings (mismatches, loop-header violations) block, and win
// over a partial probe (a server or a request that could not be probed, an interruption).
func (r *Report) Result() report.Result {
	s := r.Summary
	switch {
	case r.Findings():
		return report.Of(report.Blocking, Disagreements{Mismatch: s.Mismatch, LoopViolations: s.LoopViolations, Results: s.Results})
	case !r.Partial:
		return report.Done()
	}
	why := NotProbed{Summary: s, Interrupted: r.Interrupted}
	if s.ServersNotProbed > 0 {
		for _, sr := range r.Servers {
			if !sr.Probed {
				why.Servers = append(why.Servers, sr.Name)
			}
		}
	}
	return report.Of(report.Partial, why)
}

// Disagreements count what a probe saw that its prediction did not allow.
type Disagreements struct{ Mismatch, LoopViolations, Results int }

func (r Disagreements) String() string {
	return fmt.Sprintf("%d mismatch(es), %d loop-header violation(s) in %d result(s)", r.Mismatch, r.LoopViolations, r.Results)
}

// NotProbed is what a partial probe could not measure: the servers not probed, the
// measurements with no routing evidence (Summary's counts), or else why it was cut short.
type NotProbed struct {
	Servers     []string
	Summary     Summary
	Interrupted string
}

func (r NotProbed) String() string {
	var parts []string
	if r.Summary.ServersNotProbed > 0 {
		parts = append(parts, strings.Join(r.Servers, ", ")+" could not be probed")
	}
	s := r.Summary
	if n := s.Inconclusive + s.Errors + s.NotMeasured; n > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d measurement(s) gave no routing evidence (%d inconclusive, %d error, %d not measured)", n, s.Results, s.Inconclusive, s.Errors, s.NotMeasured))
	}
	if len(parts) == 0 {
		parts = append(parts, r.Interrupted)
	}
	return strings.Join(parts, "; ")
}
