package watch

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/mvpctl/mvpctl/pkg/proxytraffic"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// State is what a watch knows after a read: the routing table's cells, the windows still
// open, the aggregated APIServices. A Sink reads it; the tracker keeps its own.
type State struct {
	// Cells are every server's cell for every GVR of the routing table (all rows), sorted by
	// GVR, then server.
	Cells []CellState
	// Open are the windows still open, their Duration up to the read; sorted by GVR, server.
	Open []Window
	// APIServices are the aggregated APIServices last read (nil: never read).
	APIServices []APIServiceState
}

// CellState is one server's cell for one GVR.
type CellState struct {
	GVR  snapshot.GVR
	Cell route.Cell
	// ServedBy are the servers whose own discovery lists the GVR.
	ServedBy []string
}

// APIServiceState is one aggregated APIService as last read.
type APIServiceState struct {
	Name         string
	GroupVersion string
	Available    bool
}

// State is the tracker's state at time at (the open windows' durations run to it).
func (t *Tracker) State(at time.Time) State {
	var st State
	for k, c := range t.cells {
		row, ok := t.rows[k.gvr]
		if !ok { // a cell kept from an earlier read (an aggregated GV whose state is unknown)
			g, err := snapshot.ParseGVR(k.gvr)
			if err != nil {
				continue
			}
			row.gvr = g
		}
		st.Cells = append(st.Cells, CellState{GVR: row.gvr, Cell: c, ServedBy: row.servedBy})
	}
	sort.Slice(st.Cells, func(i, j int) bool {
		a, b := st.Cells[i], st.Cells[j]
		if a.GVR != b.GVR {
			return a.GVR.String() < b.GVR.String()
		}
		return a.Cell.Server < b.Cell.Server
	})
	for _, w := range t.open {
		st.Open = append(st.Open, *copyOf(w, at))
	}
	sort.Slice(st.Open, func(i, j int) bool {
		if st.Open[i].GVR != st.Open[j].GVR {
			return st.Open[i].GVR < st.Open[j].GVR
		}
		return st.Open[i].Server < st.Open[j].Server
	})
	if t.apiServices != nil {
		st.APIServices = []APIServiceState{}
		for name, a := range t.apiServices {
			st.APIServices = append(st.APIServices, APIServiceState{Name: name, GroupVersion: a.groupVersion, Available: a.available})
		}
		sort.Slice(st.APIServices, func(i, j int) bool { return st.APIServices[i].Name < st.APIServices[j].Name })
	}
	return st
}

// Read is one read of the plane as a Sink sees it.
type Read struct {
	// Started and Ended bound the read (the counters' sample included).
	Started, Ended time.Time
	// Err is why the read got nothing (nil when it got a snapshot). Wrapping ErrNoObservation,
	// it learned nothing and the last state stands; otherwise every server counted as down.
	// A first read that fails has no Snapshot.
	Err error
	// Snapshot is the plane as the watch holds it after the read: servers that vanished
	// carried as down, what their counters proved learned applied. Nil when nothing was ever
	// read.
	Snapshot *snapshot.Snapshot
	// State is the tracker's state after the read.
	State State
	// Traffic is the counters' sample taken with the read (nil when none was).
	Traffic []proxytraffic.Server
}

// Sink receives every read of a Loop, successful or not, after its events were emitted
// (Metrics is one). It is called from the loop's goroutine.
type Sink interface {
	Observe(Read)
}

// report gives the sink a read.
func (l *Loop) report(started time.Time, err error) {
	if l.Sink == nil {
		return
	}
	r := Read{Started: started, Ended: l.Clock.Now(), Err: err, Snapshot: l.last, Traffic: l.sampled}
	if l.tracker != nil && l.last != nil {
		r.State = l.tracker.State(r.Ended)
	}
	l.Sink.Observe(r)
}

// firstRead reads until a read gets a snapshot: once without RetryFirstRead, else every
// Interval until ctx ends or Total passes, each failure reported to the Sink. It returns when
// the read that got the snapshot started.
func (l *Loop) firstRead(ctx context.Context, start time.Time) (*snapshot.Snapshot, time.Time, error) {
	said := "" // each error is said once, not every interval
	for {
		t0 := l.Clock.Now()
		snap, err := l.Read(ctx)
		if err == nil {
			return snap, t0, nil
		}
		if ctx.Err() != nil {
			return nil, t0, err
		}
		l.report(t0, err)
		if !l.RetryFirstRead {
			return nil, t0, err
		}
		if text := oneLine(err.Error()); text != said {
			said = text
			l.warn("cannot read the control plane, trying again every " + l.Interval.String() + " (said once): " + text)
		}
		next := t0.Add(l.Interval)
		if l.Total > 0 && !next.Before(start.Add(l.Total)) {
			return nil, t0, err
		}
		select {
		case <-ctx.Done():
			return nil, t0, errors.Join(err, ctx.Err())
		case <-l.Clock.After(next.Sub(l.Clock.Now())):
		}
	}
}
