package preflight

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/basis"
	"github.com/mvpctl/mvpctl/pkg/report"
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

// Verdict is the one result of a preflight run: every format and the exit code print it.
// It is self-contained: the counts and what it rests on are in it. Exit is how the run ends at
// its threshold, a report.Class the command maps to an exit code (OK 0; Partial and Warnings
// 2; Blocking 3); its JSON form is verdict_json.go's.
type Verdict struct {
	Result Result
	// FailOn is the threshold the run was judged at; Exit how the run ends at it.
	FailOn FailOn
	Exit   report.Class
	// Blocking and Warning count the findings not accepted.
	Blocking, Warning int
	// RestsOn is what the run rests on besides the findings: the provisional profiles, the
	// assumptions, what was not read (basis.RestsOn.GateReads).
	RestsOn basis.RestsOn
	// Reason says in one line why the run ends as Exit says.
	Reason string
}

// VerdictInput is what a verdict is decided from.
type VerdictInput struct {
	FailOn            FailOn
	Blocking, Warning int
	RestsOn           basis.RestsOn
}

// Decide is the verdict of a run: the result from the findings and what the run rests on, and
// the exit class at the threshold. Blocking findings win over a partial read, a partial read
// over warnings and assumptions. At --fail-on blocking warnings, assumptions and provisional
// profiles exit OK (still listed); a partial read still fails closed; --fail-on never
// always passes.
func Decide(in VerdictInput) Verdict {
	v := Verdict{FailOn: in.FailOn, Blocking: in.Blocking, Warning: in.Warning, RestsOn: in.RestsOn}
	if v.FailOn == "" {
		v.FailOn = FailOnWarning
	}
	rests := in.RestsOn
	switch {
	case in.Blocking > 0:
		v.Result = ResultBlocking
	case len(rests.GateReads()) > 0:
		v.Result = ResultPartial
	case in.Warning > 0 || len(rests.Assumptions) > 0 || len(rests.Provisional) > 0:
		v.Result = ResultWarning
	default:
		v.Result = ResultPass
	}
	switch {
	case v.FailOn == FailOnNever || v.Result == ResultPass:
		v.Exit = report.OK
	case v.Result == ResultBlocking:
		v.Exit = report.Blocking
	case v.Result == ResultPartial:
		v.Exit = report.Partial
	case v.FailOn == FailOnWarning:
		v.Exit = report.Warnings
	default:
		v.Exit = report.OK
	}
	v.Reason = v.reason()
	return v
}

// Fails says whether the run fails at its threshold.
func (v Verdict) Fails() bool { return v.Exit != report.OK }

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
func (v Verdict) Caveats() []string { return v.RestsOn.GateCaveats() }

// Partial are what the run could not read, one line each.
func (v Verdict) Partial() []string { return v.RestsOn.GateReads() }

// reason is the one line that says why the run ends as it does.
func (v Verdict) reason() string {
	findings := fmt.Sprintf("%d blocking, %d warning finding(s)", v.Blocking, v.Warning)
	if c := v.Caveats(); len(c) > 0 {
		findings += "; " + strings.Join(c, "; ")
	}
	switch {
	case v.Result == ResultPass:
		return "no finding at warning or above; nothing assumed, every apiserver read"
	case v.Exit == report.OK:
		return findings + "; --fail-on " + string(v.FailOn) + " lets it pass"
	}
	return findings
}
