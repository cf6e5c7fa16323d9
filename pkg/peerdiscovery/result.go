package peerdiscovery

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/report"
)

// ExpectationsResult is the result of predicting the documents of es: partial when some
// expectation is missing or uncertain.
func ExpectationsResult(es []Expectation) report.Result {
	var gaps []Gap
	for _, e := range es {
		switch {
		case !e.Predicted():
			gaps = append(gaps, Gap{Server: e.Server, Status: e.Status})
		case len(e.Uncertain) > 0:
			gaps = append(gaps, Gap{Server: e.Server, Uncertain: e.Uncertain})
		}
	}
	if len(gaps) == 0 {
		return report.Done()
	}
	return report.Of(report.Partial, NotPredicted{Gaps: gaps})
}

// Result is a diff's result: stale or missing entries block, and win over a partial check.
func (rep *Report) Result() report.Result {
	s := rep.Summary
	switch {
	case s.Stale+s.Missing > 0:
		return report.Of(report.Blocking, StaleOrMissing{Stale: s.Stale, Missing: s.Missing})
	case !rep.Partial:
		return report.Done()
	}
	var gaps []Gap
	for _, d := range rep.Servers {
		switch {
		case d.Status == StatusUnreachable || d.Status == StatusNotRecorded:
			gaps = append(gaps, Gap{Server: d.Name, Status: d.Status})
		case len(d.Uncertain) > 0:
			gaps = append(gaps, Gap{Server: d.Name, Uncertain: d.Uncertain})
		}
	}
	return report.Of(report.Partial, NotChecked{Gaps: gaps})
}

// Gap is a server with no exact prediction: by its status (not predicted), or by what the
// prediction cannot know (Uncertain).
type Gap struct {
	Server    string
	Status    Status
	Uncertain []string
}

// NotPredicted are the servers with no exact prediction, each with why.
type NotPredicted struct{ Gaps []Gap }

func (r NotPredicted) String() string { return "no exact prediction for " + gapWords(r.Gaps, true) }

// NotChecked are the servers a diff did not check, each with why (uncertain, without what).
type NotChecked struct{ Gaps []Gap }

func (r NotChecked) String() string { return "not checked: " + gapWords(r.Gaps, false) }

// gapWords are gaps in words, each server with its status or, uncertain, with what the
// prediction cannot know (detail) or not.
func gapWords(gaps []Gap, detail bool) string {
	parts := make([]string, len(gaps))
	for i, g := range gaps {
		switch {
		case len(g.Uncertain) == 0:
			parts[i] = fmt.Sprintf("%s (%s)", g.Server, g.Status)
		case detail:
			parts[i] = fmt.Sprintf("%s (uncertain: %s)", g.Server, strings.Join(g.Uncertain, "; "))
		default:
			parts[i] = g.Server + " (uncertain)"
		}
	}
	return strings.Join(parts, ", ")
}

// StaleOrMissing counts the stale and the missing entries of a diff.
type StaleOrMissing struct{ Stale, Missing int }

func (r StaleOrMissing) String() string {
	entries := "entries"
	if r.Stale+r.Missing == 1 {
		entries = "entry"
	}
	return fmt.Sprintf("%d stale, %d missing %s", r.Stale, r.Missing, entries)
}
