package watch

import (
	"context"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/pkg/proxytraffic"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

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
