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
	u := newUniverse(snap)
	filter := sel.Filter()
	filter.Names = snap.ResourceNames()
	if !filter.Empty() {
		return u.filtered(filter, sel)
	}
	shared := u.sharedOfGroup()
	var out []Target
	for _, g := range u.gvrs {
		e := u.all[g]
		if e.t.Why = u.why(g, sel, shared); e.t.Why != "" {
			out = append(out, e.t)
		}
	}
	return out, nil
}

// universeEntry is a GVR that may be probed, and the verbs any server lists for it.
type universeEntry struct {
	t     Target
	verbs map[string]bool
}

// universe is every GVR that may be probed.
type universe struct {
	all map[snapshot.GVR]*universeEntry
	// aggregatedOnly are the GVRs only an aggregated APIService names.
	aggregatedOnly map[snapshot.GVR]bool
	// reachable counts the reachable servers.
	reachable int
	// gvrs are all's keys, sorted by name.
	gvrs []snapshot.GVR
}

// newUniverse is what the reachable servers serve, then what their peer-aggregated discovery
// lists, then the aggregated APIServices' group/versions none of these list.
func newUniverse(snap *snapshot.Snapshot) *universe {
	u := &universe{all: map[snapshot.GVR]*universeEntry{}, aggregatedOnly: map[snapshot.GVR]bool{}}
	for i := range snap.Servers {
		s := &snap.Servers[i]
		if !s.Reachable {
			continue
		}
		u.reachable++
		for _, r := range s.Resources {
			u.add(r, s.Name)
		}
	}
	for i := range snap.Servers {
		s := &snap.Servers[i]
		if !s.Reachable {
			continue
		}
		for _, r := range s.PeerAggregated {
			u.add(r, "")
		}
	}
	u.addAggregated(snap.Cluster.APIServices)
	for g, e := range u.all {
		u.gvrs = append(u.gvrs, g)
		for v := range e.verbs {
			e.t.Verbs = append(e.t.Verbs, v)
		}
		sort.Strings(e.t.Verbs)
	}
	sort.Slice(u.gvrs, func(i, j int) bool { return u.gvrs[i].String() < u.gvrs[j].String() })
	return u
}

// add counts r in the universe, served by the server named served ("": listed, not served).
func (u *universe) add(r snapshot.Resource, served string) {
	g := r.GVR()
	e := u.all[g]
	if e == nil {
		e = &universeEntry{t: Target{GVR: g, Name: g.String(), ServedBy: []string{}}, verbs: map[string]bool{}}
		u.all[g] = e
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

// addAggregated adds the aggregated APIServices' resources no discovery lists.
func (u *universe) addAggregated(apiServices []snapshot.APIService) {
	// Aggregated APIServices' group/versions that discovery marks Stale are measured too: every
	// server's aggregator answers them (docs/behaviour.md §16). One that never listed a
	// resource is measured at /apis/<group>/<version>, which the same handler answers.
	for _, a := range apiServices {
		if !a.Aggregated() {
			continue
		}
		names := a.Resources
		if len(names) == 0 {
			names = []string{""}
		}
		for _, name := range names {
			r := snapshot.Resource{Group: a.Group, Version: a.Version, Resource: name, Source: snapshot.SourceAggregated}
			if _, listed := u.all[r.GVR()]; listed {
				continue
			}
			u.add(r, "")
			u.aggregatedOnly[r.GVR()] = true
			if name == "" {
				u.all[r.GVR()].t.Name = a.GroupVersion()
			}
		}
	}
}

// filtered is the universe's GVRs that match filter; none is an error naming the closest.
func (u *universe) filtered(filter snapshot.GVRFilter, sel Selection) ([]Target, error) {
	var out []Target
	for _, g := range u.gvrs {
		e := u.all[g]
		if filter.Match(g, e.t.Kind) {
			e.t.Why = WhyFilter
			out = append(out, e.t)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	known := map[snapshot.GVR]string{}
	for g, e := range u.all {
		known[g] = e.t.Kind
	}
	if err := filter.Unmatched(known, fmt.Sprintf("the %d the reachable servers serve", len(u.gvrs))); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("no group/version/resource matches %s (the reachable servers serve %d; 'mvpctl routes --all' lists them)", sel.String(), len(u.gvrs))
}

// sharedOfGroup is the shared GVR of each group: served by every reachable server and
// listable; a namespaced one is preferred (it is listed in one namespace, which is cheap).
func (u *universe) sharedOfGroup() map[string]snapshot.GVR {
	shared := map[string]snapshot.GVR{}
	for _, g := range u.gvrs {
		e := u.all[g]
		if len(e.t.ServedBy) < u.reachable || !e.verbs[VerbList] {
			continue
		}
		if cur, ok := shared[g.Group]; !ok || (e.t.Namespaced && !u.all[cur].t.Namespaced) {
			shared[g.Group] = g
		}
	}
	return shared
}

// why g is probed without a filter: --all, an aggregated APIService's, not served everywhere,
// or its group's shared GVR; "" when it is not probed.
func (u *universe) why(g snapshot.GVR, sel Selection, shared map[string]snapshot.GVR) string {
	switch {
	case sel.All:
		return WhyAll
	case u.aggregatedOnly[g]:
		return WhyAggregated
	case len(u.all[g].t.ServedBy) < u.reachable:
		return WhyNotEverywhere
	case shared[g.Group] == g:
		return WhySharedOfGroup
	}
	return ""
}
