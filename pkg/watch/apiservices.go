package watch

import (
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// The events of aggregated APIServices (docs/behaviour.md §16): the Available condition
// every apiserver's aggregator acts on. From and To are the condition before and after
// (mvp.APIServiceConditionText); the first observation reports the unavailable ones.
const (
	// APIServiceUnavailable: an aggregated APIService is (or became) not Available: every
	// server's aggregator answers its group/version with 503 "service unavailable".
	APIServiceUnavailable = EventKind("apiservice-unavailable")
	// APIServiceAvailable: it is Available again (or appeared Available after being seen).
	APIServiceAvailable = EventKind("apiservice-available")
)

// apiServiceState is what the tracker remembers of one aggregated APIService.
type apiServiceState struct {
	groupVersion string
	available    bool
	condition    string
}

// observeAPIServices compares the snapshot's aggregated APIServices with the last ones seen.
// A snapshot that did not read the list (RBAC, a failed read) changes nothing.
func (t *Tracker) observeAPIServices(snap *snapshot.Snapshot, at time.Time) []Event {
	if lr := snap.Cluster.ListsRead; lr == nil || !lr.APIServices {
		return nil
	}
	now := map[string]apiServiceState{}
	var events []Event
	for _, a := range snap.Cluster.APIServices {
		if !a.Aggregated() {
			continue
		}
		st := apiServiceState{groupVersion: a.GroupVersion(), available: a.IsAvailable(), condition: mvp.APIServiceConditionText(a)}
		now[a.Name] = st
		before, known := t.apiServices[a.Name] // the zero state (no From) when not seen before
		switch {
		case !st.available && (!known || before.available):
			events = append(events, Event{Time: at, Type: APIServiceUnavailable, APIService: a.Name, From: before.condition, To: st.condition})
		case known && !before.available && st.available:
			events = append(events, Event{Time: at, Type: APIServiceAvailable, APIService: a.Name, From: before.condition, To: st.condition})
		}
	}
	t.apiServices = now
	return events
}

// unknownAggregated reports, for a snapshot that did not read the APIService list, whether
// gvr (a routing-table row name) belongs to an aggregated APIService seen before: its cells
// cannot be evaluated then (the router does not know it is aggregated), so they keep their
// last state and open windows stay open, as for an unreachable server.
func (t *Tracker) unknownAggregated(snap *snapshot.Snapshot, gvr string) bool {
	if lr := snap.Cluster.ListsRead; lr != nil && lr.APIServices {
		return false
	}
	for _, a := range t.apiServices {
		if gvr == a.groupVersion || strings.HasPrefix(gvr, a.groupVersion+"/") {
			return true
		}
	}
	return false
}
