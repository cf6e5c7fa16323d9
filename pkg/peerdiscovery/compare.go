package peerdiscovery

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
)

// compareDocuments lists the differences between the expected and the served groups.
func compareDocuments(exp, got []Group, served *servedIndex) []Entry {
	var out []Entry
	expIdx, gotIdx := indexGroups(exp), indexGroups(got)
	if o := orderEntry(names(exp), names(got), "groups"); o != "" {
		out = append(out, Entry{Class: ClassOrdering, Change: ChangeDifferent, Detail: o})
	}
	for _, g := range exp {
		if _, ok := gotIdx[g.Name]; !ok {
			out = append(out, missingEntry(served, g.Name, "", ""))
		}
	}
	for _, g := range got {
		eg, ok := expIdx[g.Name]
		if !ok {
			out = append(out, extraGroup(served, g)...)
			continue
		}
		out = append(out, compareGroup(eg, g, served)...)
	}
	return out
}

func compareGroup(exp, got Group, served *servedIndex) []Entry {
	var out []Entry
	if d := fieldDiff(groupMeta(exp), groupMeta(got)); d != "" {
		out = append(out, Entry{Class: ClassMetadata, Change: ChangeDifferent, Group: got.Name, Detail: d})
	}
	if o := orderEntry(versionNames(exp), versionNames(got), "versions"); o != "" {
		out = append(out, Entry{Class: ClassOrdering, Change: ChangeDifferent, Group: got.Name, Detail: o})
	}
	expV := map[string]apidiscoveryv2.APIVersionDiscovery{}
	for _, v := range exp.Versions {
		expV[v.Version] = v
	}
	gotV := map[string]bool{}
	for _, v := range got.Versions {
		gotV[v.Version] = true
	}
	for _, v := range exp.Versions {
		if !gotV[v.Version] {
			out = append(out, missingEntry(served, exp.Name, v.Version, ""))
		}
	}
	for _, v := range got.Versions {
		ev, ok := expV[v.Version]
		if !ok {
			out = append(out, extraVersion(served, got.Name, v)...)
			continue
		}
		out = append(out, compareVersion(got.Name, ev, v, served)...)
	}
	return out
}

func compareVersion(group string, exp, got apidiscoveryv2.APIVersionDiscovery, served *servedIndex) []Entry {
	var out []Entry
	if exp.Freshness != got.Freshness {
		out = append(out, Entry{Class: ClassMetadata, Change: ChangeDifferent, Group: group, Version: got.Version,
			Detail: fmt.Sprintf("freshness: expected %s, served %s", orNone(string(exp.Freshness)), orNone(string(got.Freshness)))})
	}
	if o := orderEntry(resourceNames(exp), resourceNames(got), "resources"); o != "" {
		out = append(out, Entry{Class: ClassOrdering, Change: ChangeDifferent, Group: group, Version: got.Version, Detail: o})
	}
	expR := map[string]apidiscoveryv2.APIResourceDiscovery{}
	for _, r := range exp.Resources {
		expR[r.Resource] = r
	}
	gotR := map[string]bool{}
	for _, r := range got.Resources {
		gotR[r.Resource] = true
	}
	for _, r := range exp.Resources {
		if !gotR[r.Resource] {
			out = append(out, missingEntry(served, group, exp.Version, r.Resource))
		}
	}
	for _, r := range got.Resources {
		er, ok := expR[r.Resource]
		if !ok {
			out = append(out, extraResource(served, group, got.Version, r.Resource))
			continue
		}
		out = append(out, compareResource(group, got.Version, er, r, served)...)
	}
	return out
}

// compareResource compares one resource both documents list. A subresource on one side only
// is an entry of its own (stale or unexpected when served only, missing when expected only):
// a client following it gets what a missing resource gets. Other differences are metadata.
func compareResource(group, version string, exp, got apidiscoveryv2.APIResourceDiscovery, served *servedIndex) []Entry {
	var out []Entry
	expSubs, gotSubs := subresourceNames(exp), subresourceNames(got)
	for _, sub := range slices.Sorted(maps.Keys(expSubs)) {
		if !gotSubs[sub] {
			out = append(out, missingEntry(served, group, version, exp.Resource+"/"+sub))
		}
	}
	for _, sub := range slices.Sorted(maps.Keys(gotSubs)) {
		if !expSubs[sub] {
			out = append(out, extraLeaf(served, group, version, got.Resource+"/"+sub, served.bySubresource(group, version, got.Resource, sub)))
		}
	}
	// The rest, on the subresources both list.
	e, g := exp, got
	e.Subresources, g.Subresources = commonSubresources(exp.Subresources, gotSubs), commonSubresources(got.Subresources, expSubs)
	if d := fieldDiff(e, g); d != "" {
		out = append(out, Entry{Class: ClassMetadata, Change: ChangeDifferent, Group: group, Version: version, Resource: got.Resource, Detail: d})
	}
	return out
}

func subresourceNames(r apidiscoveryv2.APIResourceDiscovery) map[string]bool {
	m := map[string]bool{}
	for _, s := range r.Subresources {
		m[s.Subresource] = true
	}
	return m
}

func commonSubresources(subs []apidiscoveryv2.APISubresourceDiscovery, other map[string]bool) []apidiscoveryv2.APISubresourceDiscovery {
	var out []apidiscoveryv2.APISubresourceDiscovery
	for _, s := range subs {
		if other[s.Subresource] {
			out = append(out, s)
		}
	}
	return out
}

func missingEntry(served *servedIndex, g, v, r string) Entry {
	var by []string
	switch {
	case v == "":
		set := map[string]bool{}
		for gv, names := range served.gv {
			if gv.Group == g {
				for _, n := range names {
					set[n] = true
				}
			}
		}
		by = slices.Sorted(maps.Keys(set))
	case r == "":
		by = sorted(served.byGV(g, v))
	case strings.Contains(r, "/"):
		res, sub, _ := strings.Cut(r, "/")
		by = sorted(served.bySubresource(g, v, res, sub))
	default:
		by = sorted(served.byGVR(g, v, r))
	}
	return Entry{Class: ClassMissing, Change: ChangeMissing, Group: g, Version: v, Resource: r,
		Detail: fmt.Sprintf(detailMissing, orNone(strings.Join(by, ", "))), ServedBy: by}
}

func extraResource(served *servedIndex, g, v, r string) Entry {
	return extraLeaf(served, g, v, r, served.byGVR(g, v, r))
}

func extraLeaf(served *servedIndex, g, v, r string, by []string) Entry {
	e := Entry{Change: ChangeExtra, Group: g, Version: v, Resource: r, ServedBy: sorted(by)}
	if len(by) == 0 {
		e.Class, e.Detail = ClassStale, detailStale
		if len(served.unread) > 0 {
			e.Detail += fmt.Sprintf(" (unless %s, which could not be read, serves it)", strings.Join(served.unread, ", "))
		}
	} else {
		e.Class, e.Detail = ClassUnexpected, fmt.Sprintf(detailUnexpected, strings.Join(e.ServedBy, ", "))
	}
	return e
}

// extraVersion classifies a served version the expectation lacks: one entry when every
// resource has the same class, else one per resource.
func extraVersion(served *servedIndex, g string, v apidiscoveryv2.APIVersionDiscovery) []Entry {
	if len(v.Resources) == 0 {
		return []Entry{extraLeaf(served, g, v.Version, "", served.byGV(g, v.Version))}
	}
	var leaves []Entry
	for _, r := range v.Resources {
		leaves = append(leaves, extraResource(served, g, v.Version, r.Resource))
	}
	// Uniform leaves collapse: their union of servers is empty exactly when all are stale.
	if _, by, ok := uniform(leaves); ok {
		return []Entry{extraLeaf(served, g, v.Version, "", by)}
	}
	return leaves
}

// extraGroup classifies a served group the expectation lacks, collapsing like extraVersion.
func extraGroup(served *servedIndex, g Group) []Entry {
	var all []Entry
	collapsible := true
	for _, v := range g.Versions {
		es := extraVersion(served, g.Name, v)
		if len(es) != 1 || es[0].Resource != "" {
			collapsible = false
		}
		all = append(all, es...)
	}
	if collapsible && len(all) > 0 {
		if _, by, ok := uniform(all); ok {
			return []Entry{extraLeaf(served, g.Name, "", "", by)}
		}
	}
	return all
}

// uniform reports whether every entry has the same class, and the union of their servers.
func uniform(es []Entry) (Class, []string, bool) {
	set := map[string]bool{}
	for _, e := range es {
		if e.Class != es[0].Class {
			return "", nil, false
		}
		for _, n := range e.ServedBy {
			set[n] = true
		}
	}
	return es[0].Class, slices.Sorted(maps.Keys(set)), true
}

// orderEntry describes how the served order of the names both lists hold differs from the
// expected one, or returns "".
func orderEntry(exp, got []string, what string) string {
	in := func(list []string) map[string]bool {
		m := map[string]bool{}
		for _, n := range list {
			m[n] = true
		}
		return m
	}
	inExp, inGot := in(exp), in(got)
	var e, g []string
	for _, n := range exp {
		if inGot[n] {
			e = append(e, n)
		}
	}
	for _, n := range got {
		if inExp[n] {
			g = append(g, n)
		}
	}
	for i := range e {
		if e[i] != g[i] {
			return fmt.Sprintf("%s in another order: at position %d expected %s, served %s (expected %s; served %s)",
				what, i+1, e[i], g[i], abbreviate(e, i), abbreviate(g, i))
		}
	}
	return ""
}

// abbreviate shows a list around position i.
func abbreviate(list []string, i int) string {
	lo, hi := max(0, i-2), min(len(list), i+3)
	s := strings.Join(list[lo:hi], ", ")
	if lo > 0 {
		s = "…, " + s
	}
	if hi < len(list) {
		s += ", …"
	}
	return "[" + s + "]"
}

// fieldDiff compares two values field by field through their JSON (so nil and empty lists are
// equal, as in the served bytes) and describes the fields that differ.
func fieldDiff(exp, got any) string {
	eb, _ := json.Marshal(exp)
	gb, _ := json.Marshal(got)
	if string(eb) == string(gb) {
		return ""
	}
	var em, gm map[string]json.RawMessage
	_ = json.Unmarshal(eb, &em)
	_ = json.Unmarshal(gb, &gm)
	keys := map[string]bool{}
	for k := range em {
		keys[k] = true
	}
	for k := range gm {
		keys[k] = true
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if string(em[k]) != string(gm[k]) {
			parts = append(parts, fmt.Sprintf("%s: expected %s, served %s", k, short(em[k]), short(gm[k])))
		}
	}
	return strings.Join(parts, "; ")
}

func short(raw json.RawMessage) string {
	s := string(raw)
	if s == "" {
		return "<none>"
	}
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// groupMeta is a group without its versions.
func groupMeta(g Group) Group {
	g.Versions = nil
	return g
}

func indexGroups(gs []Group) map[string]Group {
	m := make(map[string]Group, len(gs))
	for _, g := range gs {
		if _, dup := m[g.Name]; !dup {
			m[g.Name] = g
		}
	}
	return m
}

func names(gs []Group) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.Name
	}
	return out
}

func versionNames(g Group) []string {
	out := make([]string, len(g.Versions))
	for i, v := range g.Versions {
		out[i] = v.Version
	}
	return out
}

func resourceNames(v apidiscoveryv2.APIVersionDiscovery) []string {
	out := make([]string, len(v.Resources))
	for i, r := range v.Resources {
		out[i] = r.Resource
	}
	return out
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
