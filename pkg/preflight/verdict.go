package preflight

import (
	"fmt"
	"strings"
)

// Result is what a preflight run's findings and caveats add up to, whatever the threshold.
type Result string

const (
	// ResultPass: no finding at warning or above, nothing assumed, every apiserver read.
	ResultPass Result = "pass"
	// ResultWarning: warning findings and no blocking one, or no finding but the run rests on
	// assumptions or a provisional profile.
	ResultWarning Result = "warning"
	// ResultPartial: no blocking finding, but the start was not read whole (an apiserver not
	// read, server classes estimated through a load balancer); it fails closed.
	ResultPartial Result = "partial"
	// ResultBlocking: some finding blocks.
	ResultBlocking Result = "blocking"
)

// ExitClass is how a preflight run ends at its --fail-on threshold; the command maps it to an
// exit code (0, 2, 3).
type ExitClass string

const (
	ExitPass       ExitClass = "pass"
	ExitIncomplete ExitClass = "incomplete"
	ExitBlocking   ExitClass = "blocking"
)

// Verdict is the one result of a preflight run: every format and the exit code print it.
// It is self-contained: the counts and caveats it rests on are in it.
type Verdict struct {
	Result Result `json:"result"`
	// FailOn is the threshold the run was judged at; Exit how the run ends at it.
	FailOn FailOn    `json:"failOn"`
	Exit   ExitClass `json:"exit"`
	// Blocking and Warning count the findings not accepted.
	Blocking int `json:"blocking"`
	Warning  int `json:"warning"`
	// Assumptions are what the run assumed rather than observed; Provisional the provisional
	// profiles it rests on (versions); Partial what was not read (servers, a sampled balancer).
	Assumptions []string `json:"assumptions,omitempty"`
	Provisional []string `json:"provisional,omitempty"`
	Partial     []string `json:"partial,omitempty"`
	// Reason says in one line why the run ends as Exit says.
	Reason string `json:"reason"`
}

// VerdictInput is what a verdict is decided from.
type VerdictInput struct {
	FailOn            FailOn
	Blocking, Warning int
	Assumptions       []string
	Provisional       []string
	Partial           []string
}

// Decide is the verdict of a run: the result from the findings and the caveats, and the exit
// class at the threshold. Blocking findings win over a partial read, a partial read over
// warnings and assumptions. At --fail-on blocking warnings, assumptions and provisional
// profiles exit pass (still listed); a partial read still fails closed; --fail-on never
// always passes.
func Decide(in VerdictInput) Verdict {
	v := Verdict{FailOn: in.FailOn, Blocking: in.Blocking, Warning: in.Warning,
		Assumptions: in.Assumptions, Provisional: in.Provisional, Partial: in.Partial}
	if v.FailOn == "" {
		v.FailOn = FailOnWarning
	}
	switch {
	case in.Blocking > 0:
		v.Result = ResultBlocking
	case len(in.Partial) > 0:
		v.Result = ResultPartial
	case in.Warning > 0 || len(in.Assumptions) > 0 || len(in.Provisional) > 0:
		v.Result = ResultWarning
	default:
		v.Result = ResultPass
	}
	switch {
	case v.FailOn == FailOnNever || v.Result == ResultPass:
		v.Exit = ExitPass
	case v.Result == ResultBlocking:
		v.Exit = ExitBlocking
	case v.Result == ResultPartial || v.FailOn == FailOnWarning:
		v.Exit = ExitIncomplete
	default:
		v.Exit = ExitPass
	}
	v.Reason = v.reason()
	return v
}

// Fails says whether the run fails at its threshold.
func (v Verdict) Fails() bool { return v.Exit != ExitPass }

// FailsOn says whether a finding of severity sev is at or above the verdict's threshold.
func (v Verdict) FailsOn(sev Severity) bool {
	switch v.FailOn {
	case FailOnNever:
		return false
	case FailOnBlocking:
		return sev == Blocking
	}
	return sev == Blocking || sev == Warning
}

// Caveats are what the result rests on besides the findings, one phrase each.
func (v Verdict) Caveats() []string {
	var out []string
	if n := len(v.Partial); n > 0 {
		out = append(out, "not read: "+strings.Join(v.Partial, "; "))
	}
	if len(v.Provisional) > 0 {
		out = append(out, "rests on the provisional profile "+strings.Join(v.Provisional, ", ")+" (the PROVISIONAL lines)")
	}
	if n := len(v.Assumptions); n > 0 {
		out = append(out, fmt.Sprintf("rests on %d assumption(s) (the ASSUMED lines)", n))
	}
	return out
}

// reason is the one line that says why the run ends as it does.
func (v Verdict) reason() string {
	findings := fmt.Sprintf("%d blocking, %d warning finding(s)", v.Blocking, v.Warning)
	if c := v.Caveats(); len(c) > 0 {
		findings += "; " + strings.Join(c, "; ")
	}
	switch {
	case v.Result == ResultPass:
		return "no finding at warning or above; nothing assumed, every apiserver read"
	case v.Exit == ExitPass:
		return findings + "; --fail-on " + string(v.FailOn) + " lets it pass"
	}
	return findings
}
