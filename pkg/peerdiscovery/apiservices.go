package peerdiscovery

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// APIServiceState is an aggregated APIService whose discovery is not plainly current: it is
// not Available (every server's aggregator answers 503; its group/version is Stale), or it is
// Available again while some server's discovery still marks it Stale (the aggregator refreshes
// it at its next discovery sync). docs/behaviour.md §16.
type APIServiceState struct {
	Name         string `json:"name"`
	GroupVersion string `json:"groupVersion"`
	Service      string `json:"service"`
	Available    bool   `json:"available"`
	// Condition is the Available condition in words.
	Condition string `json:"condition"`
	// Stale names the servers whose own /apis marks the group/version Stale.
	Stale  []string `json:"stale,omitempty"`
	Detail string   `json:"detail"`
}

// apiServiceStates lists the snapshot's aggregated APIServices that are not Available, or
// Stale in some server's discovery, in the snapshot's order.
func apiServiceStates(snap *snapshot.Snapshot) []APIServiceState {
	var out []APIServiceState
	for _, a := range snap.Cluster.APIServices {
		if !a.Aggregated() || (a.IsAvailable() && len(a.Stale) == 0) {
			continue
		}
		st := APIServiceState{Name: a.Name, GroupVersion: a.GroupVersion(), Service: a.Service.String(), Available: a.IsAvailable(),
			Condition: mvp.APIServiceConditionText(a), Stale: a.Stale}
		where := "no server's discovery marks it Stale"
		if len(a.Stale) > 0 {
			where = "Stale in the discovery of " + strings.Join(a.Stale, ", ")
		}
		if st.Available {
			st.Detail = fmt.Sprintf("available again, %s until the aggregator's next discovery sync", where)
		} else {
			st.Detail = fmt.Sprintf("not available, %s: %s", where, mvp.AggregatorUnavailableConsequence)
		}
		out = append(out, st)
	}
	return out
}
