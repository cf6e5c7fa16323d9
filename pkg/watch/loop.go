package watch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mvpctl/mvpctl/pkg/basis"
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
	// unlisted counts the reads whose identity leases could not be listed.
	unlisted int
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
		} else if err := l.pendingLeases(st); err != nil {
			return Result{}, err
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

// pendingLeases takes a lease set that arrived during the last read, when the next read is
// due at once: reads that take as long as the interval follow each other with no wait, and
// the lease changes would otherwise wait for a pause between reads.
func (l *Loop) pendingLeases(st *runState) error {
	select {
	case set, ok := <-st.leases:
		if !ok {
			st.leases = nil
			return nil
		}
		return l.leaseChange(st, set)
	default:
		return nil
	}
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
	if readErr == nil && snap != nil && basis.LeasesOf(snap) != nil {
		st.unlisted++
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
	doc.LeasesNotListed = st.unlisted
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
