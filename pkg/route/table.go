package route

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/internal/parallel"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// RoutingTableKind is the kind of the structured routing table.
const RoutingTableKind = "RoutingTable"

// RoutingTable is, for each GVR, the outcome of a list request on every server.
type RoutingTable struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Snapshot   SnapshotRef     `json:"snapshot"`
	Servers    []ServerSummary `json:"servers"`
	// All is false when only the GVRs not served by every reachable server are listed.
	All bool `json:"all"`
	// Filter is the --resource/--group filter the rows were selected by, when one was given
	// (every matching GVR is then listed, as with All).
	Filter string `json:"filter,omitempty"`
	Rows   []Row  `json:"rows"`
}

// SnapshotRef says which snapshot a report was computed from.
type SnapshotRef struct {
	TakenAt time.Time `json:"takenAt,omitempty"`
	Source  string    `json:"source,omitempty"`
	Partial bool      `json:"partial"`
	// LB is the snapshot's sampling through a load balancer, when it was taken so: outcomes
	// are then per server class, and its confidence and doubts qualify them.
	LB *snapshot.LBSampling `json:"lb,omitempty"`
}

// snapshotRef is the SnapshotRef of the router's snapshot, as its reports carry it.
func (r *Router) snapshotRef() SnapshotRef {
	return SnapshotRef{TakenAt: r.snap.TakenAt, Source: r.snap.Source, Partial: r.snap.Partial(), LB: r.snap.Cluster.LB}
}

// ServerSummary identifies a server in reports.
type ServerSummary struct {
	Name      string  `json:"name"`
	ID        string  `json:"id,omitempty"`
	Version   string  `json:"version,omitempty"`
	Era       mvp.Era `json:"era,omitempty"`
	Reachable bool    `json:"reachable"`
	Error     string  `json:"error,omitempty"`
}

// Row is one GVR.
type Row struct {
	GVR snapshot.GVR `json:"gvr"`
	// Name is the GVR's printed form ("batch/v1/jobs", "v1/pods").
	Name string `json:"name"`
	// ServedBy lists the servers whose own discovery lists the GVR.
	ServedBy []string `json:"servedBy"`
	// Request is the request evaluated: a list of the resource.
	Request string `json:"request"`
	Cells   []Cell `json:"cells"`
	// ThroughLB is, for a snapshot sampled through a load balancer, what a client behind it
	// meets: each outcome's share. Nil otherwise.
	ThroughLB *LBShare `json:"throughLB,omitempty"`
}

// Cell is one server's outcome for a row.
type Cell struct {
	Server      string             `json:"server"`
	Outcome     mvp.Outcome        `json:"outcome,omitempty"`
	Status      *int               `json:"status"`
	Unavailable mvp.Unavailable503 `json:"unavailable,omitempty"`
	Peers       []string           `json:"peers,omitempty"`
	// Text is the table form: local, proxy→NAME, 404, 503, or <unreachable>.
	Text     string `json:"text"`
	Inferred bool   `json:"inferred,omitempty"`
}

// Unreachable is the table text for a server that could not be evaluated.
const Unreachable = "<unreachable>"

// Table builds the routing table. With all false, GVRs that every reachable server serves by
// itself are left out: they are local everywhere and not what an upgrade makes interesting —
// except those of an aggregated APIService that is not available, which every server answers
// with its aggregator's 503 (aggregatedRows also adds the ones no server's discovery lists).
func (r *Router) Table(all bool) RoutingTable {
	t := RoutingTable{APIVersion: report.APIVersion, Kind: RoutingTableKind, All: all, Rows: []Row{},
		Snapshot: r.snapshotRef()}
	for _, v := range r.views {
		t.Servers = append(t.Servers, ServerSummary{Name: v.srv.Name, ID: v.srv.ID, Version: v.srv.Version,
			Era: v.era, Reachable: v.srv.Reachable, Error: v.srv.Error})
	}
	gvrs := r.allGVRs()
	rows := make([]Row, len(gvrs))
	keep := make([]bool, len(gvrs))
	parallel.Chunks(len(gvrs), minRowsPerGoroutine, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			rows[i], keep[i] = r.row(gvrs[i], all)
		}
	})
	for i := range rows {
		if keep[i] {
			t.Rows = append(t.Rows, rows[i])
		}
	}
	if extra := r.aggregatedRows(gvrs, all); len(extra) > 0 {
		t.Rows = append(t.Rows, extra...)
		slices.SortFunc(t.Rows, func(a, b Row) int { return strings.Compare(a.Name, b.Name) })
	}
	return t
}

// row is the table's row for gvr; keep is false when the row is left out (every reachable
// server serves it and all is false).
func (r *Router) row(gvr namedGVR, all bool) (row Row, keep bool) {
	row = Row{GVR: gvr.GVR, Name: gvr.name, ServedBy: make([]string, 0, len(r.views))}
	everywhere := true
	for _, v := range r.views {
		if v.local.has(gvr.id) {
			row.ServedBy = append(row.ServedBy, v.srv.Name)
		} else if v.srv.Reachable {
			everywhere = false
		}
	}
	if everywhere && !all && !r.unavailableAggregated(gvr.GVR) {
		return Row{}, false
	}
	req, err := listRequest(gvr.GVR)
	if err != nil { // every GVR from discovery has a valid list path
		return Row{}, false
	}
	return r.cells(row, req, gvr.gvrKey), true
}

// cells fills row's cells with each server's decision for req.
func (r *Router) cells(row Row, req Request, key gvrKey) Row {
	row.Request = "GET " + req.Path
	row.Cells = make([]Cell, 0, len(r.views))
	for _, v := range r.views {
		if !v.srv.Reachable {
			row.Cells = append(row.Cells, Cell{Server: v.srv.Name, Text: Unreachable})
			continue
		}
		d := r.cellDecision(v, req, key)
		row.Cells = append(row.Cells, Cell{Server: v.srv.Name, Outcome: d.Outcome, Status: d.Status,
			Unavailable: d.Unavailable, Peers: d.Peers, Text: d.Cell(), Inferred: d.Inferred})
	}
	row.ThroughLB = lbShare(r.snap, row.Cells)
	return row
}

// minRowsPerGoroutine: fewer rows than this are decided on one goroutine.
const minRowsPerGoroutine = 256

// namedGVR is a numbered GVR with its printed name.
type namedGVR struct {
	gvrKey
	name string
}

// allGVRs is every GVR any server serves (or is inferred to serve), sorted by name.
func (r *Router) allGVRs() []namedGVR {
	served := newBits(len(r.gvrs.gvrs))
	for _, v := range r.views {
		served.union(v.local)
	}
	var out []namedGVR
	served.each(func(id int32) {
		g := r.gvrs.gvrs[id]
		out = append(out, namedGVR{gvrKey{g, id}, g.String()})
	})
	slices.SortFunc(out, func(a, b namedGVR) int { return strings.Compare(a.name, b.name) })
	return out
}

// listRequest is ParseRequest("GET", ListPath(g)), which a table needs for every row. Where
// ClassifyRequest, which agrees with ParseRequest on every path it takes, finds the path a
// list of g itself — no name, no subresource — the request is built without url.Parse and
// the apiserver's parser; any other path is parsed (FuzzListRequest).
func listRequest(g snapshot.GVR) (Request, error) {
	path := ListPath(g)
	c, ok := ClassifyRequest(http.MethodGet, []byte(path))
	if !ok || c.Kind != KindResource || string(c.Group) != g.Group || string(c.Version) != g.Version ||
		string(c.Resource) != g.Resource || len(c.Subresource) != 0 {
		return ParseRequest(http.MethodGet, path)
	}
	prefix := "apis"
	if g.Group == "" {
		prefix = "api"
	}
	return Request{Method: http.MethodGet, Path: path, Info: RequestInfo{IsResourceRequest: true, Verb: "list",
		APIPrefix: prefix, APIGroup: g.Group, APIVersion: g.Version, Resource: g.Resource}}, nil
}

// ListPath is the cluster-wide list path of a GVR.
func ListPath(g snapshot.GVR) string { return CollectionPath(g, "") }

// CollectionPath is the path of a GVR's collection: in namespace ns, or cluster-wide when ns
// is "".
func CollectionPath(g snapshot.GVR, ns string) string {
	prefix := "/apis/" + g.Group + "/" + g.Version
	if g.Group == "" {
		prefix = "/api/" + g.Version
	}
	if ns != "" {
		prefix += "/namespaces/" + url.PathEscape(ns)
	}
	return prefix + "/" + g.Resource
}
