package peerdiscovery

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// ReportKind is the kind of the diff report.
const ReportKind = "DiscoveryReport"

// Class says what a difference means for a client of the server's discovery.
type Class string

const (
	// ClassStale: advertised, but no reachable apiserver serves it. A client following it gets
	// 404 (or 503 while a crashed peer's identity lease lives on).
	ClassStale Class = "stale"
	// ClassMissing: served by the server itself or a peer it has learned, but not advertised.
	// Discovery clients (garbage collector, namespace deletion, kubectl) do not see it.
	ClassMissing Class = "missing"
	// ClassUnexpected: advertised and served by some reachable apiserver, but not by the server
	// or a peer it has learned: its peer data is not what the snapshot shows.
	ClassUnexpected Class = "unexpected"
	// ClassOrdering: the same entries in another order (group, version or resource order).
	ClassOrdering Class = "ordering"
	// ClassMetadata: the same entry with other content (verbs, subresources, kind, freshness).
	ClassMetadata Class = "metadata"
)

// Blocking reports whether the class makes `mvpctl discovery diff` fail (exit 3).
func (c Class) Blocking() bool { return c == ClassStale || c == ClassMissing }

// Change says on which side an entry is.
type Change string

const (
	ChangeMissing   Change = "missing"   // expected, not served
	ChangeExtra     Change = "extra"     // served, not expected
	ChangeDifferent Change = "different" // in both, differing
)

// Entry is one difference between the expected and the served document, at the coarsest level
// that covers it: a whole group, a version, or a resource.
type Entry struct {
	Class    Class  `json:"class"`
	Change   Change `json:"change"`
	Group    string `json:"group,omitempty"`
	Version  string `json:"version,omitempty"`
	Resource string `json:"resource,omitempty"`
	Detail   string `json:"detail"`
	// ServedBy names the reachable apiservers whose own discovery lists the entry.
	ServedBy []string `json:"servedBy,omitempty"`
}

// Name is the entry as "group", "group/version" or "group/version/resource"; "(group order)"
// for the order of the groups themselves.
func (e Entry) Name() string {
	switch {
	case e.Group == "":
		return "(group order)"
	case e.Version == "":
		return e.Group
	case e.Resource == "":
		return e.Group + "/" + e.Version
	}
	return e.Group + "/" + e.Version + "/" + e.Resource
}

// ServerDiff compares one server's served default /apis with the expectation.
type ServerDiff struct {
	Name    string `json:"name"`
	ID      string `json:"id,omitempty"`
	Version string `json:"version,omitempty"`
	Status  Status `json:"status"`
	Reason  string `json:"reason"`
	// Peers are the learned peers merged into the expectation.
	Peers     []string `json:"peers,omitempty"`
	Uncertain []string `json:"uncertain,omitempty"`
	// ExpectedETag is the ETag of the expected document; ServedETag the one the server sent.
	ExpectedETag string `json:"expectedETag,omitempty"`
	ServedETag   string `json:"servedETag,omitempty"`
	// ETagMatch is nil when the ETags cannot be compared (not recorded, or the served document
	// has fields mvpctl's types do not hold).
	ETagMatch *bool    `json:"etagMatch,omitempty"`
	Entries   []Entry  `json:"entries"`
	Notes     []string `json:"notes,omitempty"`
}

// Counts returns the number of entries per class.
func (d *ServerDiff) Counts() map[Class]int {
	c := map[Class]int{}
	for _, e := range d.Entries {
		c[e.Class]++
	}
	return c
}

// Summary counts entries by class. Result is blocking (some stale or missing entry), partial
// (some server or document could not be checked), differences (ordering, metadata or
// unexpected entries only) or clean.
type Summary struct {
	Checked    int    `json:"checked"`
	Stale      int    `json:"stale"`
	Missing    int    `json:"missing"`
	Unexpected int    `json:"unexpected"`
	Ordering   int    `json:"ordering"`
	Metadata   int    `json:"metadata"`
	Result     string `json:"result"`
}

// Results.
const (
	ResultClean       = "clean"
	ResultDifferences = "differences"
	ResultPartial     = "partial"
	ResultBlocking    = "blocking"
)

// Report is the result of `mvpctl discovery diff`.
type Report struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	TakenAt    time.Time `json:"takenAt,omitempty"`
	Source     string    `json:"source,omitempty"`
	// Partial is true when some selected server could not be read or checked, or its
	// expectation is uncertain.
	Partial bool         `json:"partial"`
	Servers []ServerDiff `json:"servers"`
	Summary Summary      `json:"summary"`
}

// Diff compares each selected server's recorded default /apis with its expectation (every
// server when names is empty; names are server names or IDs, and must exist).
func Diff(snap *snapshot.Snapshot, names ...string) *Report {
	rep := &Report{APIVersion: report.APIVersion, Kind: ReportKind, TakenAt: snap.TakenAt, Source: snap.Source, Servers: []ServerDiff{}}
	want := map[string]bool{}
	for _, n := range names {
		if s := snap.Find(n); s != nil {
			want[s.Name] = true
		}
	}
	served := newServedIndex(snap)
	excluded := excludedGroupVersions(snap)
	for i := range snap.Servers {
		s := &snap.Servers[i]
		if len(want) > 0 && !want[s.Name] {
			continue
		}
		d := diffServer(snap, s, excluded, served)
		rep.Servers = append(rep.Servers, d)
	}
	for _, d := range rep.Servers {
		switch d.Status {
		case StatusAggregated:
			rep.Summary.Checked++
			if len(d.Uncertain) > 0 {
				rep.Partial = true
			}
		case StatusUnreachable, StatusNotRecorded:
			rep.Partial = true
		}
		for _, e := range d.Entries {
			switch e.Class {
			case ClassStale:
				rep.Summary.Stale++
			case ClassMissing:
				rep.Summary.Missing++
			case ClassUnexpected:
				rep.Summary.Unexpected++
			case ClassOrdering:
				rep.Summary.Ordering++
			case ClassMetadata:
				rep.Summary.Metadata++
			}
		}
	}
	switch s := rep.Summary; {
	case s.Stale+s.Missing > 0:
		rep.Summary.Result = ResultBlocking
	case rep.Partial:
		rep.Summary.Result = ResultPartial
	case s.Unexpected+s.Ordering+s.Metadata > 0:
		rep.Summary.Result = ResultDifferences
	default:
		rep.Summary.Result = ResultClean
	}
	return rep
}

func diffServer(snap *snapshot.Snapshot, s *snapshot.Server, excluded map[schema.GroupVersion]string, served *servedIndex) ServerDiff {
	e := expect(snap, s, excluded)
	d := ServerDiff{Name: s.Name, ID: s.ID, Version: s.Version, Status: e.Status, Reason: e.Reason, Uncertain: e.Uncertain, Entries: []Entry{}}
	for _, p := range e.Peers {
		d.Peers = append(d.Peers, p.Name)
	}
	switch e.Status {
	case StatusNotAggregated:
		d.Reason += "; nothing to compare: not a mismatch"
		return d
	case StatusAggregated:
	default:
		return d
	}
	if s.DefaultAPIs == nil {
		d.Status = StatusNotRecorded
		d.Reason = "its default /apis document is not recorded in the snapshot (snapshots record it from this mvpctl version on)"
		return d
	}
	d.ExpectedETag, d.ServedETag = e.ETag, s.DefaultAPIs.ETag
	d.Entries = compareDocuments(e.Items(), s.DefaultAPIs.Items, served)
	switch {
	case d.ServedETag == "":
		d.Notes = append(d.Notes, "no ETag recorded for the served document: ETags not compared")
	case ETag(s.DefaultAPIs.Items) != d.ServedETag:
		d.Notes = append(d.Notes, "the served ETag is not the hash of the served document as mvpctl reads it: it has fields mvpctl's apidiscovery/v2 types do not hold (a newer apiserver?); ETags not compared")
	case s.APIs.ETag != "" && ETag(s.APIs.Items) != s.APIs.ETag:
		d.Notes = append(d.Notes, "the server's own /apis document has fields mvpctl's apidiscovery/v2 types do not hold: the expected ETag cannot be exact; ETags not compared")
	default:
		m := d.ExpectedETag == d.ServedETag
		d.ETagMatch = &m
		if !m && len(d.Entries) == 0 {
			d.Entries = append(d.Entries, Entry{Class: ClassMetadata, Change: ChangeDifferent, Detail: "the documents' ETags differ, in content mvpctl does not compare"})
		}
	}
	return d
}

// servedIndex knows which reachable server's own discovery lists what.
type servedIndex struct {
	gvr map[schema.GroupVersionResource][]string
	gv  map[schema.GroupVersion][]string
	// sub maps "group/version/resource/subresource" to servers.
	sub map[string][]string
	// unread names servers with a live identity lease that could not be read.
	unread []string
}

func newServedIndex(snap *snapshot.Snapshot) *servedIndex {
	idx := &servedIndex{gvr: map[schema.GroupVersionResource][]string{}, gv: map[schema.GroupVersion][]string{}, sub: map[string][]string{}}
	for i := range snap.Servers {
		s := &snap.Servers[i]
		if !s.Reachable {
			if s.IdentityLease != nil {
				idx.unread = append(idx.unread, s.Name)
			}
			continue
		}
		gvrs := map[schema.GroupVersionResource]bool{}
		gvs := map[schema.GroupVersion]bool{}
		subs := map[string]bool{}
		if s.APIs != nil {
			for _, g := range s.APIs.Items {
				for _, v := range g.Versions {
					gvs[schema.GroupVersion{Group: g.Name, Version: v.Version}] = true
					for _, r := range v.Resources {
						gvrs[schema.GroupVersionResource{Group: g.Name, Version: v.Version, Resource: r.Resource}] = true
						for _, sr := range r.Subresources {
							subs[subKey(g.Name, v.Version, r.Resource, sr.Subresource)] = true
						}
					}
				}
			}
		}
		for _, r := range s.Resources {
			gvs[schema.GroupVersion{Group: r.Group, Version: r.Version}] = true
			gvrs[schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}] = true
			for _, sr := range r.Subresources {
				subs[subKey(r.Group, r.Version, r.Resource, sr)] = true
			}
		}
		for k := range subs {
			idx.sub[k] = append(idx.sub[k], s.Name)
		}
		for k := range gvrs {
			idx.gvr[k] = append(idx.gvr[k], s.Name)
		}
		for k := range gvs {
			idx.gv[k] = append(idx.gv[k], s.Name)
		}
	}
	return idx
}

func (idx *servedIndex) byGVR(g, v, r string) []string {
	return idx.gvr[schema.GroupVersionResource{Group: g, Version: v, Resource: r}]
}

func (idx *servedIndex) bySubresource(g, v, r, sub string) []string {
	return idx.sub[subKey(g, v, r, sub)]
}

func subKey(g, v, r, sub string) string { return g + "/" + v + "/" + r + "/" + sub }

func (idx *servedIndex) byGV(g, v string) []string {
	return idx.gv[schema.GroupVersion{Group: g, Version: v}]
}

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
	for _, sub := range sortedKeys(expSubs) {
		if !gotSubs[sub] {
			out = append(out, missingEntry(served, group, version, exp.Resource+"/"+sub))
		}
	}
	for _, sub := range sortedKeys(gotSubs) {
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

const (
	detailMissing    = "served by %s, but not advertised: discovery clients (garbage collector, namespace deletion, kubectl) do not see it"
	detailStale      = "advertised, but no reachable apiserver serves it: clients get 404 (503 while a crashed server still holds its lease)"
	detailUnexpected = "advertised and served by %s, but neither by this server nor by a peer it has learned: its peer data is not what the snapshot shows"
)

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
		by = sortedKeys(set)
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
	return es[0].Class, sortedKeys(set), true
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
	for _, k := range sortedKeys(keys) {
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

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
