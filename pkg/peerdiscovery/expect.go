package peerdiscovery

import (
	"fmt"
	"sort"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Status says what a server's default /apis is.
type Status string

const (
	// StatusAggregated: the default /apis merges the server's own document with its peers'
	// (1.35+ with the peer proxy built).
	StatusAggregated Status = "peer-aggregated"
	// StatusNotAggregated: before 1.35, or without the peer proxy: the default /apis is the
	// server's own document.
	StatusNotAggregated Status = "not-aggregated"
	// StatusUnreachable: the server could not be read when the snapshot was taken.
	StatusUnreachable Status = "unreachable"
	// StatusNotRecorded: a document the prediction needs is not in the snapshot (taken by an
	// older mvpctl, or the server did not answer aggregated discovery v2).
	StatusNotRecorded Status = "not-recorded"
)

// Peer is a server whose document is merged into another's.
type Peer struct {
	Name    string `json:"name"`
	ID      string `json:"id"`
	Version string `json:"version,omitempty"`
	// Groups is how many groups it contributes after the exclusions.
	Groups int `json:"groups"`
	// Excluded lists the group/versions removed from its document: CRD and aggregated
	// APIService group/versions are taken from the server's own view only (docs/behaviour.md §6).
	Excluded []string `json:"excluded,omitempty"`
}

// Skipped is another server whose document is not merged, and why.
type Skipped struct {
	Name   string `json:"name"`
	ID     string `json:"id,omitempty"`
	Reason string `json:"reason"`
}

// Expectation is the default /apis document one server should serve, predicted from a
// snapshot.
type Expectation struct {
	Server  string `json:"server"`
	ID      string `json:"id,omitempty"`
	Version string `json:"version,omitempty"`
	Status  Status `json:"status"`
	// Reason says how Status was decided, from the snapshot's evidence.
	Reason string `json:"reason"`
	// Peers are the servers it has learned, whose documents are merged (ascending ID, the
	// merge order).
	Peers   []Peer    `json:"peers,omitempty"`
	Skipped []Skipped `json:"skipped,omitempty"`
	// Uncertain lists what the prediction cannot know, e.g. a peer with a live identity lease
	// that mvpctl could not read: the server may still hold what it fetched from it.
	Uncertain []string `json:"uncertain,omitempty"`
	// ETag is the ETag the server should send with Document.
	ETag     string                                `json:"etag,omitempty"`
	Document *apidiscoveryv2.APIGroupDiscoveryList `json:"document,omitempty"`

	// sources maps "group/version" and "group/version/resource" to the names of the merged
	// servers whose document lists it.
	sources map[string][]string
}

// Items returns the expected document's groups (nil when there is no prediction).
func (e *Expectation) Items() []Group {
	if e.Document == nil {
		return nil
	}
	return e.Document.Items
}

// Sources returns the names of the merged servers (the server itself and its peers) whose
// document lists gv, a "group/version" or "group/version/resource".
func (e *Expectation) Sources(gv string) []string { return e.sources[gv] }

// Predicted reports whether the expectation has a document.
func (e *Expectation) Predicted() bool { return e.Document != nil }

// Expect predicts every server's default /apis, in snapshot order.
func Expect(snap *snapshot.Snapshot) []Expectation {
	excluded := excludedGroupVersions(snap)
	out := make([]Expectation, len(snap.Servers))
	for i := range snap.Servers {
		out[i] = expect(snap, &snap.Servers[i], excluded)
	}
	return out
}

// ExpectFor predicts one server's default /apis; server is its name or ID.
func ExpectFor(snap *snapshot.Snapshot, server string) (Expectation, error) {
	s := snap.Find(server)
	if s == nil {
		return Expectation{}, fmt.Errorf("no server %q in the snapshot (servers: %s)", server, strings.Join(snap.ServerNames(), ", "))
	}
	return expect(snap, s, excludedGroupVersions(snap)), nil
}

// excludedGroupVersions is the exclusion set of 1.35+ servers (mvp.ExcludedGroupVersions),
// keyed as the merge keys group/versions. Group/versions deleted within the last 5 minutes are
// excluded too; a snapshot cannot see them. The value says why.
func excludedGroupVersions(snap *snapshot.Snapshot) map[schema.GroupVersion]string {
	ex := map[schema.GroupVersion]string{}
	for gv, why := range mvp.ExcludedGroupVersions(snap) {
		if g, err := schema.ParseGroupVersion(gv); err == nil {
			ex[g] = why.String()
		}
	}
	return ex
}

// aggregates decides whether s's default /apis is peer-aggregated, from the snapshot's
// evidence.
func aggregates(s *snapshot.Server) (bool, string) {
	v, err := snapshot.ParseVersion(s.Version)
	if err != nil || v.Major != 1 {
		if pa := s.PeerProxy.PeerAggregatedDiscovery; pa != nil {
			return *pa, "version unknown; the snapshot's evidence decides"
		}
		return false, fmt.Sprintf("version %q: its discovery behaviour is unknown", s.Version)
	}
	if !mvp.CanAggregateDiscovery(v) {
		return false, fmt.Sprintf("%s: no peer-aggregated discovery before %s", v.MinorString(), mvp.AggregationSince())
	}
	pp := s.PeerProxy
	switch {
	case pp.PeerAggregatedDiscovery != nil && *pp.PeerAggregatedDiscovery:
		return true, fmt.Sprintf("%s with the peer proxy built: /apis merges its peers' discovery", v.MinorString())
	case pp.PeerAggregatedDiscovery != nil:
		return false, fmt.Sprintf("%s without the peer proxy (gate off or no --peer-ca-file): /apis is its own document", v.MinorString())
	case pp.FilterInstalled != nil:
		if *pp.FilterInstalled {
			return true, fmt.Sprintf("%s with the proxy filter installed: /apis merges its peers' discovery", v.MinorString())
		}
		return false, fmt.Sprintf("%s without the proxy filter: /apis is its own document", v.MinorString())
	case pp.GateEnabled != nil && !*pp.GateEnabled:
		return false, fmt.Sprintf("%s with the gate off: /apis is its own document", v.MinorString())
	}
	// Nothing observed: the installer's stated flags, else the binary's default configuration
	// (mvp.AggregatesDiscovery).
	on, assumed := mvp.AggregatesDiscovery(s)
	how, noCA := "assumed: ", "without --peer-ca-file (kube-apiserver's default)"
	if src := mvp.StatedSource(s); !assumed && src != "" {
		how, noCA = "stated ("+src+"): ", "without the proxy filter (gate off or no --peer-ca-file)"
	}
	if on {
		return true, fmt.Sprintf("%s%s with the peer proxy built: /apis merges its peers' discovery", how, v.MinorString())
	}
	return false, fmt.Sprintf("%s%s %s, so no peer proxy: /apis is its own document", how, v.MinorString(), noCA)
}

// learned decides whether server s holds peer p's document in its peer cache: p is s's peer by
// the apiserver's rule (mvp.PeerOf), and — for mvpctl to know what s fetched — p was read and
// its document recorded. ok=false with
// uncertain set means s may hold p's data but mvpctl cannot know it.
func learned(s, p *snapshot.Server) (ok bool, reason string, uncertain bool) {
	if why := mvp.PeerOf(s, p); why.Excluded() {
		return false, why.String(), false
	}
	switch {
	case !p.Reachable:
		return false, "identity lease present but the server could not be read: the server may still hold the document it fetched from it earlier", true
	}
	switch p.DiscoveryFormat {
	case snapshot.DiscoveryLegacy, snapshot.DiscoveryV2Beta1:
		return false, fmt.Sprintf("answers %s discovery, which peers decode as an error (they accept v2 only): contributes nothing", p.DiscoveryFormat), false
	case snapshot.DiscoveryProfiled:
		return false, "simulated from a version profile: no discovery document recorded", true
	}
	if p.APIs == nil {
		return false, "its /apis document is not recorded in the snapshot", true
	}
	return true, "", false
}

func expect(snap *snapshot.Snapshot, s *snapshot.Server, excluded map[schema.GroupVersion]string) Expectation {
	e := Expectation{Server: s.Name, ID: s.ID, Version: s.Version}
	if !s.Reachable {
		e.Status, e.Reason = StatusUnreachable, "could not be read when the snapshot was taken: "+orNone(s.Error)
		return e
	}
	agg, why := aggregates(s)
	e.Reason = why
	if s.APIs == nil {
		missing := notRecorded(s)
		if !agg {
			e.Status, e.Reason = StatusNotAggregated, why+"; "+missing
			return e
		}
		e.Status, e.Reason = StatusNotRecorded, missing
		return e
	}
	if !agg {
		e.Status = StatusNotAggregated
		e.setDocument(s.APIs.Items, map[string][]Group{s.Name: s.APIs.Items})
		return e
	}
	e.Status = StatusAggregated
	if s.ID == "" {
		e.Uncertain = append(e.Uncertain, "this server's ID is unknown (no identity lease matched): the merge runs in ascending server-ID order, so its place in that order is assumed to be first")
	}
	exclusions := map[schema.GroupVersion]bool{}
	for gv := range excluded {
		exclusions[gv] = true
	}
	peers := map[string][]Group{}
	byName := map[string][]Group{s.Name: s.APIs.Items}
	notRecorded := false
	for i := range snap.Servers {
		p := &snap.Servers[i]
		if p == s {
			continue
		}
		ok, reason, uncertain := learned(s, p)
		if !ok {
			e.Skipped = append(e.Skipped, Skipped{Name: p.Name, ID: p.ID, Reason: reason})
			if uncertain {
				e.Uncertain = append(e.Uncertain, fmt.Sprintf("peer %s: %s", p.Name, reason))
				if p.Reachable {
					notRecorded = true
				}
			}
			continue
		}
		groups, removed := FilterPeer(PeerGroups(p.APIs.Items), exclusions)
		peers[p.ID] = groups
		byName[p.Name] = groups
		e.Peers = append(e.Peers, Peer{Name: p.Name, ID: p.ID, Version: p.Version, Groups: len(groups), Excluded: removed})
	}
	if notRecorded {
		e.Status = StatusNotRecorded
		e.Reason = "a learned peer's /apis document is not recorded: " + strings.Join(e.Uncertain, "; ")
		return e
	}
	sort.Slice(e.Peers, func(i, j int) bool { return e.Peers[i].ID < e.Peers[j].ID })
	if len(e.Peers) == 0 {
		e.Reason += "; no peers learned: the document is its own, unchanged"
	}
	e.setDocument(Merge(s.ID, s.APIs.Items, peers), byName)
	return e
}

// notRecorded says why a server's own document is not in the snapshot.
func notRecorded(s *snapshot.Server) string {
	switch s.DiscoveryFormat {
	case snapshot.DiscoveryLegacy, snapshot.DiscoveryV2Beta1:
		return fmt.Sprintf("it answers %s discovery: there is no aggregated v2 document to record", s.DiscoveryFormat)
	case snapshot.DiscoveryProfiled:
		return "simulated from a version profile: no discovery document is recorded"
	}
	return "its /apis document is not recorded in the snapshot (taken by an mvpctl without `discovery`?): take a new snapshot"
}

func (e *Expectation) setDocument(items []Group, inputs map[string][]Group) {
	e.Document = Document(items)
	e.ETag = ETag(items)
	e.sources = map[string][]string{}
	for name, groups := range inputs {
		for _, g := range groups {
			for _, v := range g.Versions {
				gv := schema.GroupVersion{Group: g.Name, Version: v.Version}.String()
				e.sources[gv] = append(e.sources[gv], name)
				for _, r := range v.Resources {
					e.sources[gv+"/"+r.Resource] = append(e.sources[gv+"/"+r.Resource], name)
				}
			}
		}
	}
	for _, names := range e.sources {
		sort.Strings(names)
	}
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
