package preflight

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// apiServiceFindings reports aggregated APIServices that are not Available in the start
// snapshot: every apiserver answers their group/version with its own aggregator's 503
// (docs/behaviour.md §16), kubectl api-resources fails for every client, and an upgrade
// changes nothing about it — so it is fixed before, not confused with the upgrade's own 503s.
// ran is false when the snapshot did not record the APIServices (a file from before they were,
// profiles, scenarios, or a list RBAC refused).
func apiServiceFindings(s *snapshot.Snapshot) (out []Finding, ran bool) {
	if s.Cluster.ListsRead == nil || !s.Cluster.ListsRead.APIServices || s.Cluster.APIServices == nil {
		return nil, false
	}
	when := "undated"
	if !s.TakenAt.IsZero() {
		when = s.TakenAt.UTC().Format("2006-01-02T15:04:05Z")
	}
	for _, a := range s.Cluster.APIServices {
		if !a.Aggregated() || a.IsAvailable() {
			continue
		}
		evidence := fmt.Sprintf("APIService %s status.conditions[Available] in the snapshot %s from %s", a.Name, when, orNone(s.Source))
		if c := a.Available; c != nil && c.LastTransitionTime != nil {
			evidence += fmt.Sprintf(" (since %s)", c.LastTransitionTime.UTC().Format("2006-01-02T15:04:05Z"))
		}
		out = append(out, Finding{Check: CheckAPIServices.ID, Name: CheckAPIServices.Name, Severity: Warning, Subject: a.Name,
			Message: fmt.Sprintf("APIService %s (%s, service %s) is not available (%s): %s", a.Name, a.GroupVersion(), a.Service,
				mvp.APIServiceConditionText(a), mvp.AggregatorUnavailableConsequence),
			Evidence: []string{evidence},
			Hint:     strings.Join(mvp.APIServiceChecks(a), "; ")})
	}
	return out, true
}
