package watch

import (
	"sort"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// EventKind names a change.
type EventKind string

const (
	ServerAdded    EventKind = "server-added"
	ServerGone     EventKind = "server-gone"
	ServerDown     EventKind = "server-down"
	ServerUp       EventKind = "server-up"
	VersionChanged EventKind = "version-changed"
	OutcomeChanged EventKind = "outcome-changed"
	WindowOpened   EventKind = "window-opened"
	WindowClosed   EventKind = "window-closed"
)

// Event is one change seen between two snapshots.
type Event struct {
	Time   time.Time `json:"time"`
	Type   EventKind `json:"type"`
	Server string    `json:"server"`
	// GVR is set for outcome and window events.
	GVR string `json:"gvr,omitempty"`
	// From and To are versions (version-changed, server-up) or routing-table cells
	// (outcome-changed: local, proxy→NAME, 404, 503).
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// ToOutcome is, for outcome-changed, the outcome of the cell To writes.
	ToOutcome mvp.Outcome `json:"-"`
	// Window is the window a window event opens or closes.
	Window *Window `json:"window,omitempty"`

	// Lease is the identity lease of a lease event; Since and LeaseDuration say, for
	// lease-stale, when it was last renewed and for how long that held.
	Lease         string        `json:"lease,omitempty"`
	Since         time.Time     `json:"since,omitempty"`
	LeaseDuration time.Duration `json:"leaseDuration,omitempty"`

	// Traffic is what a traffic event counted.
	Traffic *Traffic `json:"traffic,omitempty"`

	// APIService names the aggregated APIService of an apiservice event (From and To are its
	// Available condition before and after).
	APIService string `json:"apiService,omitempty"`
}

// Window is a time during which a server answered 404 or 503 for a GVR some server served, or
// its aggregator's 503 for an aggregated APIService that was not available.
type Window struct {
	Server string `json:"server"`
	GVR    string `json:"gvr"`
	// Outcome is not-found or unavailable (Unavailable says which 503).
	Outcome     mvp.Outcome        `json:"outcome"`
	Unavailable mvp.Unavailable503 `json:"unavailable,omitempty"`
	Opened      time.Time          `json:"opened"`
	// Closed is zero while the window is open.
	Closed time.Time `json:"closed,omitempty"`
	// Duration is Closed - Opened, or up to the summary's time for a window still open.
	Duration time.Duration `json:"duration"`
	// ServedBy are the servers that served the GVR when the window opened.
	ServedBy []string `json:"servedBy"`
}

// Tracker holds the last state seen and the open windows.
type Tracker struct {
	servers map[string]serverState
	cells   map[cellKey]route.Cell
	open    map[cellKey]*Window
	closed  []Window
	started time.Time
	// apiServices are the aggregated APIServices last seen, by name; nil until a snapshot
	// recorded them.
	apiServices map[string]apiServiceState
	// rows are the routing table's GVRs of the last observation, by row name.
	rows map[string]rowState
}

type rowState struct {
	gvr      snapshot.GVR
	servedBy []string
}

type serverState struct {
	version   string
	reachable bool
	// answered is when the server last answered; refused, when it first did not since.
	answered, refused time.Time
}

type cellKey struct{ server, gvr string }

// NewTracker starts tracking.
func NewTracker() *Tracker {
	return &Tracker{servers: map[string]serverState{}, cells: map[cellKey]route.Cell{}, open: map[cellKey]*Window{}}
}

// Observe compares snap, taken at at, with the state seen before and returns the changes in a
// stable order: servers first (by name), then outcomes and windows (by GVR, then server). The
// first observation reports every server as added and opens the windows it finds.
func (t *Tracker) Observe(snap *snapshot.Snapshot, at time.Time) []Event {
	if t.started.IsZero() {
		t.started = at
	}
	events := t.observeServers(snap, at)
	events = append(events, t.observeAPIServices(snap, at)...)
	cells, rows := routingCells(snap)
	for _, k := range changedCellKeys(cells, t.cells) {
		events = append(events, t.observeCell(snap, k, cells, rows[k.gvr].servedBy, at)...)
	}
	t.cells, t.rows = cells, rows
	return events
}

// observeServers records each server's state and returns the servers added, down, up, gone
// and upgraded or downgraded since the last observation.
func (t *Tracker) observeServers(snap *snapshot.Snapshot, at time.Time) []Event {
	var events []Event
	seen := map[string]bool{}
	for _, s := range snap.Servers {
		seen[s.Name] = true
		now := serverState{version: s.Version, reachable: s.Reachable}
		before, known := t.servers[s.Name]
		events = append(events, serverEvents(s.Name, before, known, now, at)...)
		t.servers[s.Name] = nextServerState(before, now, at)
	}
	t.narrowEndpointWindows(snap, at)
	for _, name := range sortedKeys(t.servers) {
		if !seen[name] {
			events = append(events, Event{Time: at, Type: ServerGone, Server: name, From: t.servers[name].version})
			delete(t.servers, name)
		}
	}
	return events
}

// serverEvents: a server first seen is added; one that stopped answering is down, one that
// answers again is up; one that answers with another version than before changed version.
func serverEvents(name string, before serverState, known bool, now serverState, at time.Time) []Event {
	var events []Event
	switch {
	case !known:
		events = append(events, Event{Time: at, Type: ServerAdded, Server: name, To: now.version})
	case before.reachable && !now.reachable:
		events = append(events, Event{Time: at, Type: ServerDown, Server: name, From: before.version})
	case !before.reachable && now.reachable:
		events = append(events, Event{Time: at, Type: ServerUp, Server: name, From: before.version, To: now.version})
	}
	if known && now.reachable && before.version != "" && now.version != "" && before.version != now.version {
		events = append(events, Event{Time: at, Type: VersionChanged, Server: name, From: before.version, To: now.version})
	}
	return events
}

// nextServerState is what is kept of a server seen at at: an unreachable server keeps its last
// known version; when it last answered, and since when it has not.
func nextServerState(before, now serverState, at time.Time) serverState {
	if now.version == "" { // an unreachable server's version is not read: keep the last known
		now.version = before.version
	}
	now.answered, now.refused = before.answered, before.refused
	switch {
	case now.reachable:
		now.answered, now.refused = at, time.Time{}
	case now.refused.IsZero():
		now.refused = at
	}
	return now
}

// routingCells is snap's routing table as cells by server and row, and its rows by name.
func routingCells(snap *snapshot.Snapshot) (map[cellKey]route.Cell, map[string]rowState) {
	table := route.NewRouter(snap).Table(true)
	cells := map[cellKey]route.Cell{}
	rows := make(map[string]rowState, len(table.Rows))
	for _, row := range table.Rows {
		rows[row.Name] = rowState{gvr: row.GVR, servedBy: row.ServedBy}
		for _, c := range row.Cells {
			cells[cellKey{c.Server, row.Name}] = c
		}
	}
	return cells, rows
}

// changedCellKeys are the cells of now and those of before no longer in now, by GVR, then
// server.
func changedCellKeys(now, before map[cellKey]route.Cell) []cellKey {
	keys := make([]cellKey, 0, len(now)+len(before))
	for k := range now {
		keys = append(keys, k)
	}
	for k := range before {
		if _, ok := now[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].gvr != keys[j].gvr {
			return keys[i].gvr < keys[j].gvr
		}
		return keys[i].server < keys[j].server
	})
	return keys
}

// observeCell compares one cell with its last state: an aggregated GVR whose APIService is not
// known keeps its last cell; otherwise the outcome changed, and a window opened or closed.
func (t *Tracker) observeCell(snap *snapshot.Snapshot, k cellKey, cells map[cellKey]route.Cell, servedBy []string, at time.Time) []Event {
	before, had := t.cells[k]
	if had && t.unknownAggregated(snap, k.gvr) {
		cells[k] = before
		return nil
	}
	var events []Event
	now, has := cells[k]
	if had && has && before.Text != now.Text && now.Text != route.Unreachable && before.Text != route.Unreachable {
		events = append(events, Event{Time: at, Type: OutcomeChanged, Server: k.server, GVR: k.gvr, From: before.Text, To: now.Text, ToOutcome: now.Outcome})
	}
	if e := t.observeWindow(k, now, has, servedBy, at); e != nil {
		events = append(events, *e)
	}
	return events
}

// observeWindow opens a window on a cell that answers 404 or 503 for a GVR some server serves,
// and closes it when the cell no longer does; nil when neither happens.
func (t *Tracker) observeWindow(k cellKey, now route.Cell, has bool, servedBy []string, at time.Time) *Event {
	// An aggregated APIService's 503 is a window too, though discovery then lists its
	// group/version nowhere (docs/behaviour.md §16).
	failing := has && (now.Outcome == mvp.NotFound || now.Outcome == mvp.Unavailable) &&
		(len(servedBy) > 0 || now.Unavailable == mvp.APIServiceUnavailable)
	w := t.open[k]
	switch {
	case failing && w == nil:
		w = &Window{Server: k.server, GVR: k.gvr, Outcome: now.Outcome, Unavailable: now.Unavailable, Opened: at,
			ServedBy: append([]string(nil), servedBy...)}
		t.open[k] = w
		return &Event{Time: at, Type: WindowOpened, Server: k.server, GVR: k.gvr, To: now.Text, Window: copyOf(w, at)}
	case !failing && w != nil && (!has || now.Text != route.Unreachable):
		// An unreachable server cannot be evaluated: its window stays open until it is
		// seen again, or the GVR is served nowhere any more.
		w.Closed, w.Duration = at, at.Sub(w.Opened)
		t.closed = append(t.closed, *w)
		delete(t.open, k)
		return &Event{Time: at, Type: WindowClosed, Server: k.server, GVR: k.gvr, Window: copyOf(w, at)}
	}
	return nil
}

func copyOf(w *Window, at time.Time) *Window {
	c := *w
	if c.Closed.IsZero() {
		c.Duration = at.Sub(c.Opened)
	}
	return &c
}

// Summary is every window seen, closed or still open at the time of the summary.
type Summary struct {
	From    time.Time `json:"from"`
	To      time.Time `json:"to"`
	Windows []Window  `json:"windows"`
}

// Summary returns the windows seen up to at, oldest first; windows still open last until at.
func (t *Tracker) Summary(at time.Time) Summary {
	s := Summary{From: t.started, To: at, Windows: append([]Window(nil), t.closed...)}
	for _, w := range t.open {
		s.Windows = append(s.Windows, *copyOf(w, at))
	}
	sort.SliceStable(s.Windows, func(i, j int) bool {
		a, b := s.Windows[i], s.Windows[j]
		if !a.Opened.Equal(b.Opened) {
			return a.Opened.Before(b.Opened)
		}
		if a.GVR != b.GVR {
			return a.GVR < b.GVR
		}
		return a.Server < b.Server
	})
	return s
}

func sortedKeys(m map[string]serverState) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// narrowEndpointWindows narrows, for each server of snap that stopped answering, the window in
// which its endpoint key expires with the moments this watch saw it answer last and refuse
// first (mvp.NarrowEndpointWindow), so that the routing of this and later samples names the
// 503 peers answer with more often with certainty. The moment it refused counts only when its
// identity lease was not renewed after it: a server that still renews is alive, just not
// reachable from here.
func (t *Tracker) narrowEndpointWindows(snap *snapshot.Snapshot, at time.Time) {
	if !snap.TakenAt.IsZero() {
		at = snap.TakenAt
	}
	for i := range snap.Servers {
		s := &snap.Servers[i]
		st := t.servers[s.Name]
		lease := s.IdentityLease
		if s.Reachable || st.answered.IsZero() || lease == nil || lease.RenewTime == nil {
			continue
		}
		if gate, _ := mvp.GateOn(s); !gate {
			continue
		}
		w := mvp.EndpointWindowAfter(*lease.RenewTime)
		if s.PeerProxy.EndpointWindow != nil {
			w = *s.PeerProxy.EndpointWindow
		}
		refused := st.refused
		if lease.RenewTime.After(refused) {
			refused = time.Time{}
		}
		w = mvp.NarrowEndpointWindow(w, st.answered, refused)
		if resolves, known := mvp.EndpointAt(w, at); known {
			s.PeerProxy.EndpointResolvable, s.PeerProxy.EndpointWindow = snapshot.Ptr(resolves), nil
		} else {
			s.PeerProxy.EndpointResolvable, s.PeerProxy.EndpointWindow = nil, &w
		}
	}
}
