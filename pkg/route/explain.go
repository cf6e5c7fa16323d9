package route

import (
	"fmt"
	"github.com/mvpctl/mvpctl/pkg/lifecycle"

	"github.com/mvpctl/mvpctl/pkg/report"
)

// ExplanationKind is the kind of the structured explanation. Its JSON is a contract
// (docs/explanation.md).
const ExplanationKind = "Explanation"

// Explanation is the decision of each server for one request.
type Explanation struct {
	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Snapshot   SnapshotRef `json:"snapshot"`
	// WhatIf are the steps applied to the snapshot before the request was explained (explain
	// --step), in order, as simulate names them ("crash kas-a"); none for the snapshot as it is.
	WhatIf  []string `json:"whatIf,omitempty"`
	Request Request  `json:"request"`
	// Servers holds one decision per evaluated server, in snapshot order.
	Servers []Decision `json:"servers"`
	// Unreachable lists the servers that could not be evaluated: they did not answer when the
	// snapshot was taken.
	Unreachable []ServerSummary `json:"unreachable,omitempty"`
	// Lifecycle is what Kubernetes states of the requested resource's API (pkg/lifecycle),
	// when it states something (set by the caller).
	Lifecycle *lifecycle.Row `json:"lifecycle,omitempty"`
}

// Explain evaluates req on server (a name or ID), or on every reachable server when server is
// empty.
func (r *Router) Explain(req Request, server string) (Explanation, error) {
	e := Explanation{APIVersion: report.APIVersion, Kind: ExplanationKind, Request: req, Servers: []Decision{},
		Snapshot: r.snapshotRef()}
	if server != "" {
		d, err := r.Decide(server, req)
		if err != nil {
			return e, err
		}
		e.Servers = append(e.Servers, d)
		r.crashTimelines(req, e.Servers)
		return e, nil
	}
	decisions, skipped := r.DecideAll(req)
	e.Servers = append(e.Servers, decisions...)
	r.crashTimelines(req, e.Servers)
	for _, name := range skipped {
		v := r.byName[name]
		e.Unreachable = append(e.Unreachable, ServerSummary{Name: name, ID: v.srv.ID, Version: v.srv.Version,
			Era: v.era, Reachable: false, Error: v.srv.Error})
	}
	if len(e.Servers) == 0 {
		return e, fmt.Errorf("no server in the snapshot was reachable: nothing to explain")
	}
	return e, nil
}
