package watch

import (
	"sort"
	"time"
)

// The events of the identity leases (kube-system, label apiserver.kubernetes.io/identity).
const (
	LeaseAdded = EventKind("lease-added")
	LeaseGone  = EventKind("lease-gone")
	// LeaseNewHolder: the lease was renewed by another holder — a new process of the server
	// (kube-apiserver's holder identity carries a per-process UUID). A 1.35+ restart deletes
	// and recreates the lease: gone then added, or a new holder when the watch hands on both
	// at once; a 1.34 restart keeps the holder, no event (docs/behaviour.md §11.4).
	LeaseNewHolder = EventKind("lease-new-holder")
	// LeaseAddressChanged: the peer-advertise address annotation changed.
	LeaseAddressChanged = EventKind("lease-address-changed")
	// LeaseStale: not renewed within its duration (the holder died without deleting it).
	LeaseStale = EventKind("lease-stale")
)

// Lease is what the watch uses of one identity lease.
type Lease struct {
	Name     string
	Hostname string // kubernetes.io/hostname label
	Address  string // kubernetes.io/peer-advertise-address annotation
	Holder   string
	Renew    time.Time     // zero when never renewed
	Duration time.Duration // spec.leaseDurationSeconds; zero when unset
}

// LeaseTracker diffs successive sets of identity leases.
type LeaseTracker struct {
	known map[string]Lease
	stale map[string]bool // leases reported stale, until renewed
	seen  bool            // a first set was observed: it is the baseline
}

// NewLeaseTracker starts with no lease known.
func NewLeaseTracker() *LeaseTracker {
	return &LeaseTracker{known: map[string]Lease{}, stale: map[string]bool{}}
}

// Observe compares set with the last set and returns the changes, by lease name. The first
// set is the baseline and gives none: the servers themselves are reported by the reads.
func (t *LeaseTracker) Observe(set []Lease, at time.Time) []Event {
	now := map[string]Lease{}
	for _, l := range set {
		now[l.Name] = l
	}
	first := !t.seen
	t.seen = true
	var events []Event
	names := make([]string, 0, len(now)+len(t.known))
	for n := range now {
		names = append(names, n)
	}
	for n := range t.known {
		if _, ok := now[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		before, had := t.known[n]
		l, has := now[n]
		if has && l.Renew != before.Renew {
			delete(t.stale, n) // renewed: stale again only after another duration
		}
		if first {
			continue
		}
		server := l.Hostname // how discovery names a server found by its lease
		if !has {
			server = before.Hostname
		}
		switch {
		case !had && has:
			events = append(events, Event{Time: at, Type: LeaseAdded, Server: server, Lease: n, To: l.Holder})
		case had && !has:
			events = append(events, Event{Time: at, Type: LeaseGone, Server: server, Lease: n, From: before.Holder})
			delete(t.stale, n)
		case before.Holder != l.Holder:
			events = append(events, Event{Time: at, Type: LeaseNewHolder, Server: server, Lease: n, From: before.Holder, To: l.Holder})
		case before.Address != l.Address:
			events = append(events, Event{Time: at, Type: LeaseAddressChanged, Server: server, Lease: n, From: before.Address, To: l.Address})
		}
	}
	t.known = now
	return events
}

// Stale returns the leases that, at at, are older than their duration and were not reported
// stale yet (once each, until renewed).
func (t *LeaseTracker) Stale(at time.Time) []Event {
	var events []Event
	names := make([]string, 0, len(t.known))
	for n := range t.known {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		l := t.known[n]
		if l.Renew.IsZero() || l.Duration <= 0 || t.stale[n] || !at.After(l.Renew.Add(l.Duration)) {
			continue
		}
		t.stale[n] = true
		events = append(events, Event{Time: at, Type: LeaseStale, Server: l.Hostname, Lease: n, From: l.Holder,
			Since: l.Renew, LeaseDuration: l.Duration})
	}
	return events
}

// Hostname is the hostname label of a known lease.
func (t *LeaseTracker) Hostname(name string) string { return t.known[name].Hostname }
