package preflight

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/pkg/basis"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Kind is the kind of a preflight report.
const Kind = "PreflightReport"

// Report is the result of all checks.
type Report struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// RestsOn is what the run rests on besides observation, read first: the simulation's
	// (simulate.Simulation.RestsOn: the provisional profiles, the stated configuration, the
	// assumptions, the start's reads), with the gate's own reads not whole (client evidence
	// cut at its budget, manifests that do not parse). The Verdict carries it.
	basis.RestsOn
	// Scenario echoes what was checked: start, steps, target.
	Scenario ScenarioEcho `json:"scenario"`
	Checks   []Check      `json:"checks"`
	Findings []Finding    `json:"findings"`
	// Accepted are the findings an accept rule (--ignore, --baseline, .mvpctl-ignore)
	// accepted: listed, not counted towards the result.
	Accepted []AcceptedFinding `json:"accepted,omitempty"`
	// StaleAccepts are accept rules that matched no finding: the risk is gone, or the rule is
	// wrong; remove them.
	StaleAccepts []AcceptRule `json:"staleAccepts,omitempty"`
	// AcceptNotes say how to rewrite accept rules of an old form (legacy.go).
	AcceptNotes []string `json:"acceptNotes,omitempty"`
	Summary     Summary  `json:"summary"`
	// Verdict is the run's one result at its --fail-on threshold: every format and the exit
	// code print it.
	Verdict Verdict `json:"verdict"`
	// Filtered says which findings a --resource/--group filter left out (Narrow, filter.go).
	Filtered *FindingsFiltered `json:"filtered,omitempty"`
	// Simulation and Traffic hold the underlying results.
	Simulation *simulate.Simulation `json:"simulation,omitempty"`
	// Evidence is the client evidence the harm of each window was decided on: the start's
	// request counters and the sources in Options.Evidence.
	Evidence *replay.ClientEvidence `json:"evidence,omitempty"`
	Traffic  *replay.Report         `json:"traffic,omitempty"`
	// Objects are the objects of --manifests and the Helm releases, each judged (objects.go);
	// ObjectsSummary counts them.
	Objects        []ObjectRow     `json:"objects,omitempty"`
	ObjectsSummary *ObjectsSummary `json:"objectsSummary,omitempty"`
}

// ScenarioEcho spells out current → target, so nobody has to guess what was checked.
type ScenarioEcho struct {
	Start   string                   `json:"start"`
	TakenAt time.Time                `json:"takenAt,omitempty"`
	Servers []simulate.ServerVersion `json:"servers"`
	Target  string                   `json:"target,omitempty"`
	Steps   []string                 `json:"steps"`
	// Kept say which servers the plan keeps at an older patch release of the target minor
	// version (simulate.PatchNote), and how to rehearse their patch restart.
	Kept     []string `json:"kept,omitempty"`
	Profiles []string `json:"profiles,omitempty"`
	Partial  bool     `json:"partial"`
}

// Summary counts findings by severity (accepted ones apart); Result is pass, warning or
// blocking, from the findings not accepted.
type Summary struct {
	Blocking int `json:"blocking"`
	Warning  int `json:"warning"`
	Info     int `json:"info"`
	// Accepted counts the accepted findings; Stale the accept rules that matched none.
	Accepted int    `json:"accepted"`
	Stale    int    `json:"stale,omitempty"`
	Result   Result `json:"result"`
}

// bySeverity orders findings for a reader: blocking first, then warnings, then info; in the
// order the checks ran within each.
func bySeverity(fs []Finding) {
	rank := map[Severity]int{Blocking: 0, Warning: 1, Info: 2}
	sort.SliceStable(fs, func(i, j int) bool { return rank[fs[i].Severity] < rank[fs[j].Severity] })
}

// summarize counts the findings and decides the result.
func (r *Report) summarize() {
	r.Summary = Summary{Accepted: len(r.Accepted), Stale: len(r.StaleAccepts)}
	for _, f := range r.Findings {
		switch f.Severity {
		case Blocking:
			r.Summary.Blocking++
		case Warning:
			r.Summary.Warning++
		default:
			r.Summary.Info++
		}
	}
	r.Verdict = Decide(VerdictInput{FailOn: r.Verdict.FailOn, Blocking: r.Summary.Blocking, Warning: r.Summary.Warning,
		RestsOn: r.RestsOn})
	r.Summary.Result = r.Verdict.Result
}

// CheckedLine says what was checked: the servers, the target, the steps and the start.
func (r *Report) CheckedLine() string {
	var servers []string
	for _, s := range r.Scenario.Servers {
		servers = append(servers, s.Name+"="+s.Version)
	}
	s := "Checked: " + strings.Join(servers, ", ")
	if r.Scenario.Target != "" {
		s += " → " + r.Scenario.Target
	}
	s += fmt.Sprintf(" (%d step(s); start: %s", len(r.Scenario.Steps), r.Scenario.Start)
	if len(r.Scenario.Profiles) > 0 {
		s += "; profiles " + strings.Join(r.Scenario.Profiles, ", ")
	}
	return s + ")"
}

// startEvidence describes where each server's data came from.
func startEvidence(s *snapshot.Snapshot) map[string]string {
	ev := map[string]string{}
	when := "undated"
	if !s.TakenAt.IsZero() {
		when = s.TakenAt.UTC().Format(time.RFC3339)
	}
	for _, srv := range s.Servers {
		doc := "non-peer discovery (" + orNone(srv.DiscoveryFormat) + ")"
		if srv.DiscoveryFormat == snapshot.DiscoveryProfiled {
			doc = "profile " + srv.Version + " (discovery of a real default kube-apiserver)"
		}
		ev[srv.Name] = fmt.Sprintf("server %s (%s, %s) at %s: %s, %s", srv.Name, orNone(srv.ID), orNone(srv.Version), orNone(srv.Endpoint), doc, "snapshot "+when+" from "+orNone(s.Source))
	}
	return ev
}

func withoutCheck(cs []Check, c Check) []Check {
	var out []Check
	for _, x := range cs {
		if x.ID != c.ID {
			out = append(out, x)
		}
	}
	return out
}

// FailOn is the lowest severity that fails a preflight run (--fail-on).
type FailOn string

const (
	FailOnWarning  FailOn = "warning"
	FailOnBlocking FailOn = "blocking"
	FailOnNever    FailOn = "never"
)

// FailOnValues are the thresholds, in the order help and errors list them.
var FailOnValues = []FailOn{FailOnWarning, FailOnBlocking, FailOnNever}

// Failing says what fails the run at threshold failOn: Blocking when some finding blocks,
// Warning when there are warnings only and failOn is FailOnWarning, and "" when the run
// passes (no finding at or above the threshold, or failOn is FailOnNever). It looks at the
// findings only; Verdict also weighs assumptions and partial reads.
func (r *Report) Failing(failOn FailOn) Severity {
	switch {
	case failOn == FailOnNever:
		return ""
	case r.Summary.Blocking > 0:
		return Blocking
	case r.Summary.Warning > 0 && failOn == FailOnWarning:
		return Warning
	}
	return ""
}
