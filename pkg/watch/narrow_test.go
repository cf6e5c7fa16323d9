package watch

import (
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// The watch narrows a dead server's endpoint window with the moments it saw it answer last and
// refuse first: kas-b last renewed its lease 9 s before the sample in which it still answered
// (t0) and refused at t0+1 s. From the lease alone its key lives until t0-4 s and is gone by
// t0+16.9 s; from what the watch saw, until t0+5 s and by t0+16.5 s. A lease renewed after the
// refusal keeps the upper bound: the server still runs, mvpctl only lost its way to it.
func TestNarrowEndpointWindows(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	renew := t0.Add(-9 * time.Second)
	for _, tt := range []struct {
		name         string
		at           time.Duration // after t0, of the sample after the refusal
		renewedAfter bool
		want         string // resolves, expired, or window
	}{
		{"4.5 s: the lease alone cannot tell, the watch can", 4500 * time.Millisecond, false, "resolves"},
		{"10 s: inside the narrowed window too", 10 * time.Second, false, "window"},
		{"16.7 s: past the narrowed window", 16700 * time.Millisecond, false, "expired"},
		{"16.7 s, lease renewed after the refusal: alive", 16700 * time.Millisecond, true, "resolves"},
	} {
		plane := func(takenAt time.Time, answers bool) *snapshot.Snapshot {
			s, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "kas-a", Version: "1.36", Proxy: "configured"}, {Name: "kas-b", Version: "1.36", Proxy: "configured"}}, takenAt)
			if err != nil {
				t.Fatal(err)
			}
			s.TakenAt = takenAt
			b := s.Find("kas-b")
			b.IdentityLease.RenewTime = &renew
			if answers {
				return s
			}
			b.Reachable, b.Error = false, "connection refused"
			if tt.renewedAfter {
				r := t0.Add(16 * time.Second)
				b.IdentityLease.RenewTime = &r
				// what discover concludes from a lease renewed 0.7 s before the snapshot
				b.PeerProxy.EndpointResolvable = snapshot.Ptr(takenAt.Before(r.Add(5 * time.Second)))
			} else {
				w := mvp.EndpointWindowAfter(renew)
				b.PeerProxy.EndpointWindow = &w
			}
			return s
		}
		tr := NewTracker()
		tr.Observe(plane(t0, true), t0)
		tr.Observe(plane(t0.Add(time.Second), false), t0.Add(time.Second))
		later := plane(t0.Add(tt.at), false)
		tr.Observe(later, later.TakenAt)
		pp := later.Find("kas-b").PeerProxy
		got := "window"
		switch {
		case pp.EndpointResolvable != nil && *pp.EndpointResolvable:
			got = "resolves"
		case pp.EndpointResolvable != nil:
			got = "expired"
		}
		if got != tt.want {
			t.Errorf("%s: %s (window %+v), want %s", tt.name, got, pp.EndpointWindow, tt.want)
		}
	}
}
