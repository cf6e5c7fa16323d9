package peerdiscovery

import (
	"time"

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
	// APIServices are the aggregated APIServices that are not Available, or Stale in some
	// server's discovery (apiServiceStates): not a difference of the documents, but why their
	// group/version is Stale in them.
	APIServices []APIServiceState `json:"apiServices,omitempty"`
	Summary     Summary           `json:"summary"`
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
	rep.APIServices = apiServiceStates(snap)
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

const (
	detailMissing    = "served by %s, but not advertised: discovery clients (garbage collector, namespace deletion, kubectl) do not see it"
	detailStale      = "advertised, but no reachable apiserver serves it: clients get 404 (503 while a crashed server still holds its lease)"
	detailUnexpected = "advertised and served by %s, but neither by this server nor by a peer it has learned: its peer data is not what the snapshot shows"
)
