package watch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/pkg/proxytraffic"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Clock is the loop's time; tests move it by hand.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// RealClock is the wall clock.
type RealClock struct{}

// Now is time.Now.
func (RealClock) Now() time.Time { return time.Now() }

// After is time.After.
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// TrafficSampler reads the peer-proxy counters of a snapshot's servers and returns, per
// server, what each counted since its previous call (proxytraffic.Sampler).
type TrafficSampler interface {
	Sample(ctx context.Context, snap *snapshot.Snapshot) []proxytraffic.Server
}

// Loop follows a control plane: it reads it (Read), feeds each snapshot to a Tracker and
// emits the events; it re-reads every Interval, and soon after (Debounce) each change of the
// identity leases that arrives on Leases. It does no printing: events go to Emit, problems
// to Warn; the caller prints the summary Run returns.
type Loop struct {
	Read        func(context.Context) (*snapshot.Snapshot, error)
	Clock       Clock
	Interval    time.Duration
	UntilStable time.Duration // stop once nothing changed for this long (0: never)
	Total       time.Duration // stop after this long (0: never)

	// Leases are the identity leases as a Kubernetes watch sees them, the whole set after
	// each change (nil: no lease watch, interval re-reads only).
	Leases <-chan []Lease
	// Debounce is how long after a lease change the re-read starts, so that the changes of
	// one restart (lease deleted, created) make one read.
	Debounce time.Duration
	// Traffic, when set, samples the proxy counters after each interval read.
	Traffic TrafficSampler

	// Sink, when set, receives every read (the exporter's metrics).
	Sink Sink
	// RetryFirstRead: a first read that gets nothing is reported to the Sink and tried again
	// every Interval, instead of ending the watch (an exporter waits for its plane).
	RetryFirstRead bool

	Emit func(EventDoc) error
	Warn func(string)
	// Loc is the time zone of the times in warnings (UTC when nil).
	Loc *time.Location

	tracker  *Tracker
	proven   *provenLearned
	leases   *LeaseTracker
	traffic  *TrafficTotals
	last     *snapshot.Snapshot
	version  map[string]string // last known version per server
	lastRead time.Time
	sampled  []proxytraffic.Server // the counters' sample of the last read (nil: none)
}

// ErrNoObservation, wrapped in an error of Read, says that the read learned nothing about
// any server — not even that they are down: the last state stands.
var ErrNoObservation = errors.New("nothing observed")

// Result is what a watch saw, for its summary and exit code.
type Result struct {
	Summary SummaryDoc
	// Down are the servers still down at the end: their windows could not be closed.
	Down []string
}

// Why a watch ended (SummaryDoc.Stopped).
const (
	StoppedInterrupted = "interrupted"
	StoppedStable      = "stable"
	StoppedTimeout     = "timeout"
)

// runState is what one Run counts and waits for.
type runState struct {
	start      time.Time
	lastChange time.Time
	// rereadAt is when a lease change asked for a read (zero: none asked).
	rereadAt time.Time
	// leases is Leases until the lease watch ends, then nil.
	leases                        <-chan []Lease
	snapshots, failed, leaseReads int
}

// Run watches until ctx ends, UntilStable passes with no change, or Total passes. Only a
// first read that gets nothing is an error; later failed reads count every server as down.
func (l *Loop) Run(ctx context.Context) (Result, error) {
	l.tracker, l.leases, l.traffic, l.proven = NewTracker(), NewLeaseTracker(), NewTrafficTotals(), newProvenLearned()
	l.version = map[string]string{}
	if l.Loc == nil {
		l.Loc = time.UTC
	}
	start := l.Clock.Now()
	snap, readStart, err := l.firstRead(ctx, start)
	if err != nil {
		return Result{}, err // nothing could be read: fail as every command does
	}
	at := l.Clock.Now()
	if _, err := l.observeRead(ctx, snap, at, true); err != nil {
		return Result{}, err
	}
	l.report(readStart, nil)
	st := &runState{start: start, lastChange: at, leases: l.Leases, snapshots: 1}
	l.lastRead = readStart
	for {
		now := l.Clock.Now()
		if stopped := l.stopReason(ctx, st, now); stopped != "" {
			return l.result(st, stopped), nil
		}
		wait, byLease := l.nextRead(st, now)
		if wait > 0 {
			read, err := l.waitForRead(ctx, st, wait)
			if err != nil {
				return Result{}, err
			}
			if !read {
				continue
			}
		}
		if err := l.readOnce(ctx, st, byLease); err != nil {
			return Result{}, err
		}
	}
}

// stopReason says why the watch ends at now: interrupted, stable for UntilStable, or Total
// passed; "" while it goes on.
func (l *Loop) stopReason(ctx context.Context, st *runState, now time.Time) string {
	switch {
	case ctx.Err() != nil:
		return StoppedInterrupted
	case l.UntilStable > 0 && now.Sub(st.lastChange) >= l.UntilStable:
		return StoppedStable
	case l.Total > 0 && now.Sub(st.start) >= l.Total:
		return StoppedTimeout
	}
	return ""
}

// nextRead is how long from now until the next read, and whether a lease change asked for it:
// one Interval after the last read, sooner when a lease change asked, never past Total.
func (l *Loop) nextRead(st *runState, now time.Time) (time.Duration, bool) {
	next := l.lastRead.Add(l.Interval)
	byLease := !st.rereadAt.IsZero() && st.rereadAt.Before(next)
	if byLease {
		next = st.rereadAt
	}
	wait := next.Sub(now)
	if l.Total > 0 {
		wait = min(wait, st.start.Add(l.Total).Sub(now))
	}
	return wait, byLease
}

// waitForRead waits wait, or less when ctx ends or the leases change; it says whether to read
// now (false: the watch is looked at again first).
func (l *Loop) waitForRead(ctx context.Context, st *runState, wait time.Duration) (bool, error) {
	select {
	case <-ctx.Done():
		return false, nil
	case set, ok := <-st.leases:
		if !ok {
			st.leases = nil // the lease watch ended: interval re-reads only
			return false, nil
		}
		return false, l.leaseChange(st, set)
	case <-l.Clock.After(wait):
	}
	return !(l.Total > 0 && l.Clock.Now().Sub(st.start) >= l.Total), nil
}

// leaseChange observes a new set of identity leases; a change that needs a read asks for one
// Debounce later, unless one is asked already.
func (l *Loop) leaseChange(st *runState, set []Lease) error {
	at := l.Clock.Now()
	n, reread, err := l.observeLeases(set, at)
	if err != nil {
		return err
	}
	if n > 0 {
		st.lastChange = at
	}
	if reread && st.rereadAt.IsZero() {
		st.rereadAt = at.Add(l.Debounce)
	}
	return nil
}

// readOnce reads the control plane and observes what the read got; an interval read (not
// byLease) also emits the leases gone stale.
func (l *Loop) readOnce(ctx context.Context, st *runState, byLease bool) error {
	if byLease {
		st.leaseReads++
	}
	st.rereadAt = time.Time{}
	l.lastRead = l.Clock.Now()
	snap, readErr := l.Read(ctx)
	if ctx.Err() != nil {
		return nil // interrupted during the read: what it got is not an observation
	}
	at := l.Clock.Now()
	st.snapshots++
	l.sampled = nil
	n, err := l.observeReadResult(ctx, st, snap, readErr, at, byLease)
	if err != nil {
		return err
	}
	if !byLease {
		// Stale leases are interval business: a lease-triggered read comes between two.
		stale, err := l.emitAll(l.leases.Stale(at), at)
		if err != nil {
			return err
		}
		n += stale
	}
	l.report(l.lastRead, readErr)
	if n > 0 {
		st.lastChange = at
	}
	return nil
}

// observeReadResult observes a read's snapshot: a read that learned nothing about any server
// leaves their last state, one that failed otherwise counts every server as down.
func (l *Loop) observeReadResult(ctx context.Context, st *runState, snap *snapshot.Snapshot, readErr error, at time.Time, byLease bool) (int, error) {
	switch {
	case errors.Is(readErr, ErrNoObservation):
		// Nothing was learned about any server (the kubeconfig's server, through which
		// the leases are listed, restarting): the last state stands.
		st.failed++
		l.warn(fmt.Sprintf("read at %s got nothing, the servers' last state stands: %s", at.In(l.Loc).Format("15:04:05"), oneLine(readErr.Error())))
		return 0, nil
	case readErr != nil:
		st.failed++
		l.warn(fmt.Sprintf("read at %s got nothing, every server counts as down: %s", at.In(l.Loc).Format("15:04:05"), oneLine(readErr.Error())))
		snap = allDown(l.last, readErr.Error())
	}
	return l.observeRead(ctx, snap, at, !byLease)
}

// result is the watch's summary at its end, and the servers still down.
func (l *Loop) result(st *runState, stopped string) Result {
	end := l.Clock.Now()
	doc := NewSummaryDoc(l.tracker.Summary(end))
	doc.Snapshots, doc.ReadsFailed, doc.LeaseTriggeredReads, doc.Stopped = st.snapshots, st.failed, st.leaseReads, stopped
	if l.Traffic != nil {
		t := l.traffic.Doc()
		doc.Traffic = &t
	}
	res := Result{Summary: doc}
	for _, s := range l.last.Servers {
		if !s.Reachable {
			res.Down = append(res.Down, s.Name)
		}
	}
	return res
}

func (l *Loop) warn(s string) {
	if l.Warn != nil {
		l.Warn(s)
	}
}

// observe feeds snap to the tracker and emits its events; it returns how many.
func (l *Loop) observe(snap *snapshot.Snapshot, at time.Time) (int, error) {
	snap = carryVanished(l.last, snap)
	l.last = snap
	events := l.tracker.Observe(snap, at)
	servers := map[string]*snapshot.Server{}
	for i := range snap.Servers {
		servers[snap.Servers[i].Name] = &snap.Servers[i]
	}
	// A server whose version changed in this read is labelled from→to in all its lines.
	label := map[string]string{}
	for _, e := range events {
		if e.Type == VersionChanged {
			label[e.Server] = e.From + "→" + e.To
		}
	}
	for _, s := range snap.Servers {
		if s.Version != "" {
			l.version[s.Name] = s.Version
		}
	}
	for _, e := range events {
		version := l.version[e.Server]
		if e.Type == ServerGone {
			version = e.From
		}
		errText := ""
		if s := servers[e.Server]; s != nil && !s.Reachable && (e.Type == ServerDown || e.Type == ServerAdded) {
			errText = oneLine(s.Error)
		}
		d := NewEventDoc(e, version, errText)
		d.Label = label[e.Server]
		if err := l.Emit(d); err != nil {
			return 0, err
		}
	}
	return len(events), nil
}

// observeLeases diffs a lease set with the last one and emits the changes, named after the
// servers of the last read; reread says whether a change calls for reading the plane again.
func (l *Loop) observeLeases(set []Lease, at time.Time) (n int, reread bool, err error) {
	events := l.leases.Observe(set, at)
	for _, e := range events {
		reread = reread || e.Type != LeaseStale
	}
	n, err = l.emitAll(events, at)
	return n, reread, err
}

// emitAll emits events about leases or traffic, each labelled with its server's version. A
// lease event names the server that held the lease in the last read, or else the lease's
// hostname label, or else the lease.
func (l *Loop) emitAll(events []Event, _ time.Time) (int, error) {
	for _, e := range events {
		if e.Lease != "" {
			if name := l.serverOfLease(e.Lease); name != "" {
				e.Server = name
			} else if e.Server == "" {
				e.Server = e.Lease
			}
		}
		if err := l.Emit(NewEventDoc(e, l.version[e.Server], "")); err != nil {
			return 0, err
		}
	}
	return len(events), nil
}

// serverOfLease names the server whose identity is lease in the last read ("" if none).
func (l *Loop) serverOfLease(lease string) string {
	if l.last != nil {
		for _, s := range l.last.Servers {
			if s.ID == lease || (s.IdentityLease != nil && s.IdentityLease.Name == lease) {
				return s.Name
			}
		}
	}
	return ""
}

// observeRead observes one read: with sample (the interval's reads), the counters are read
// first, so that what they prove a server learned counts in this very read (provenLearned);
// the read's events come first, then the traffic's. It returns the number of read events.
func (l *Loop) observeRead(ctx context.Context, snap *snapshot.Snapshot, at time.Time, sample bool) (int, error) {
	var servers []proxytraffic.Server
	if sample && l.Traffic != nil {
		servers = l.Traffic.Sample(ctx, snap)
		if ctx.Err() != nil {
			servers = nil // interrupted: a sample cut short is none
		}
	}
	l.sampled = servers
	l.proven.forget(snap)
	l.proven.add(servers, snap)
	n, err := l.observe(l.proven.apply(snap), at)
	if err != nil || servers == nil {
		return n, err
	}
	l.traffic.Add(servers)
	_, err = l.emitAll(TrafficEvents(servers, at), at)
	return n, err
}

// vanishedError is the error of a server whose identity lease is gone.
const vanishedError = "not found any more: no identity lease (a graceful stop deletes it on 1.35+) and not read otherwise"

// carryVanished keeps in snap, as unreachable, the servers of prev it no longer has: a
// server stopped gracefully deletes its identity lease, so discovery no longer finds it, and
// during an upgrade it comes back. It is down meanwhile, not gone. Only its name and version
// are kept: with no identity it is no proxy target.
func carryVanished(prev, snap *snapshot.Snapshot) *snapshot.Snapshot {
	if prev == nil {
		return snap
	}
	have := map[string]bool{}
	for _, s := range snap.Servers {
		have[s.Name] = true
	}
	var missing []snapshot.Server
	for _, s := range prev.Servers {
		if !have[s.Name] {
			errText := vanishedError
			if !s.Reachable && s.ID == "" {
				errText = s.Error // already carried: keep why
			}
			missing = append(missing, snapshot.Server{Name: s.Name, Hostname: s.Hostname, Version: s.Version, Error: errText})
		}
	}
	if len(missing) == 0 {
		return snap
	}
	c := *snap
	c.Servers = append(append([]snapshot.Server(nil), snap.Servers...), missing...)
	return &c
}

// allDown is prev with every server unreachable for errText: a read that got nothing. The
// servers keep what they served, so that the GVRs stay known and no window closes on a read
// that saw nothing.
func allDown(prev *snapshot.Snapshot, errText string) *snapshot.Snapshot {
	c := *prev
	c.Servers = nil
	for _, s := range prev.Servers {
		s.Reachable, s.Error = false, errText
		c.Servers = append(c.Servers, s)
	}
	return &c
}

// oneLine folds whitespace, so that an error prints as one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
