package probe

import (
	"fmt"
	"sort"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Why a GVR was selected.
const (
	WhyNotEverywhere = "not served by every reachable server"
	WhySharedOfGroup = "served by every server: one per group, to check local handling"
	WhyAll           = "--all"
	WhyFilter        = "matches the filter"
	WhyAggregated    = "an aggregated APIService's that no server's discovery lists as served (Stale, or never listed): each server's own aggregator answers it"
)

// Select returns the GVRs to probe, sorted by name. The universe is what the reachable servers
// serve themselves plus what their peer-aggregated discovery lists (GVRs of servers that are
// down). A filter that matches nothing is an error.
func Select(snap *snapshot.Snapshot, sel Selection) ([]Target, error) {
	type entry struct {
		t     Target
		verbs map[string]bool
	}
	all := map[snapshot.GVR]*entry{}
	add := func(r snapshot.Resource, served string) {
		g := r.GVR()
		e := all[g]
		if e == nil {
			e = &entry{t: Target{GVR: g, Name: g.String(), ServedBy: []string{}}, verbs: map[string]bool{}}
			all[g] = e
		}
		if e.t.Kind == "" {
			e.t.Kind = r.Kind
		}
		e.t.Namespaced = e.t.Namespaced || r.Namespaced
		for _, v := range r.Verbs {
			e.verbs[v] = true
		}
		if served != "" {
			e.t.ServedBy = append(e.t.ServedBy, served)
		}
	}
	reachable := 0
	for i := range snap.Servers {
		s := &snap.Servers[i]
		if !s.Reachable {
			continue
		}
		reachable++
		for _, r := range s.Resources {
			add(r, s.Name)
		}
	}
	for i := range snap.Servers {
		s := &snap.Servers[i]
		if !s.Reachable {
			continue
		}
		for _, r := range s.PeerAggregated {
			add(r, "")
		}
	}
	// Aggregated APIServices' group/versions that discovery marks Stale are measured too: every
	// server's aggregator answers them (docs/behaviour.md §16). One that never listed a
	// resource is measured at /apis/<group>/<version>, which the same handler answers.
	aggregatedOnly := map[snapshot.GVR]bool{}
	for _, a := range snap.Cluster.APIServices {
		if !a.Aggregated() {
			continue
		}
		names := a.Resources
		if len(names) == 0 {
			names = []string{""}
		}
		for _, name := range names {
			r := snapshot.Resource{Group: a.Group, Version: a.Version, Resource: name, Source: snapshot.SourceAggregated}
			if _, listed := all[r.GVR()]; listed {
				continue
			}
			add(r, "")
			aggregatedOnly[r.GVR()] = true
			if name == "" {
				all[r.GVR()].t.Name = a.GroupVersion()
			}
		}
	}
	var gvrs []snapshot.GVR
	for g, e := range all {
		gvrs = append(gvrs, g)
		for v := range e.verbs {
			e.t.Verbs = append(e.t.Verbs, v)
		}
		sort.Strings(e.t.Verbs)
	}
	sort.Slice(gvrs, func(i, j int) bool { return gvrs[i].String() < gvrs[j].String() })

	filter := sel.Filter()
	filter.Names = snap.ResourceNames()
	var out []Target
	if !filter.Empty() {
		for _, g := range gvrs {
			e := all[g]
			if filter.Match(g, e.t.Kind) {
				e.t.Why = WhyFilter
				out = append(out, e.t)
			}
		}
		if len(out) == 0 {
			known := map[snapshot.GVR]string{}
			for g, e := range all {
				known[g] = e.t.Kind
			}
			if err := filter.Unmatched(known, fmt.Sprintf("the %d the reachable servers serve", len(gvrs))); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("no group/version/resource matches %s (the reachable servers serve %d; 'mvpctl routes --all' lists them)", sel.String(), len(gvrs))
		}
		return out, nil
	}
	// The shared GVR of each group: served by every reachable server and listable; a
	// namespaced one is preferred (it is listed in one namespace, which is cheap).
	shared := map[string]snapshot.GVR{}
	for _, g := range gvrs {
		e := all[g]
		if len(e.t.ServedBy) < reachable || !e.verbs[VerbList] {
			continue
		}
		if cur, ok := shared[g.Group]; !ok || (e.t.Namespaced && !all[cur].t.Namespaced) {
			shared[g.Group] = g
		}
	}
	for _, g := range gvrs {
		e := all[g]
		switch {
		case sel.All:
			e.t.Why = WhyAll
		case aggregatedOnly[g]:
			e.t.Why = WhyAggregated
		case len(e.t.ServedBy) < reachable:
			e.t.Why = WhyNotEverywhere
		case shared[g.Group] == g:
			e.t.Why = WhySharedOfGroup
		default:
			continue
		}
		out = append(out, e.t)
	}
	return out, nil
}
