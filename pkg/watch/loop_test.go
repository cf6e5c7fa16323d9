package watch

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/proxytraffic"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// carryVanished keeps a server whose lease disappeared as down, with no identity.
func TestCarryVanished(t *testing.T) {
	prev := &snapshot.Snapshot{Servers: []snapshot.Server{{Name: "a", ID: "apiserver-a", Version: "v1.36.3", Reachable: true}, {Name: "b", ID: "apiserver-b", Version: "v1.36.3", Reachable: true}}}
	now := &snapshot.Snapshot{Servers: []snapshot.Server{prev.Servers[1]}}
	got := carryVanished(prev, now)
	if len(got.Servers) != 2 || got.Servers[1].Name != "a" || got.Servers[1].Reachable || got.Servers[1].ID != "" || got.Servers[1].Version != "v1.36.3" || got.Servers[1].Error != vanishedError {
		t.Errorf("carried: %+v", got.Servers)
	}
	if len(now.Servers) != 1 {
		t.Error("carryVanished changed its argument")
	}
	if again := carryVanished(got, now); len(again.Servers) != 2 || again.Servers[1].Error != vanishedError {
		t.Errorf("carried twice: %+v", again.Servers)
	}
}

// steadyPlane is two 1.37 servers, a and b.
func steadyPlane(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	s, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.37"}, {Name: "b", Version: "1.37"}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// countingSampler returns, at each call, one proxied request of a and a discovery fetch.
type countingSampler struct{ calls int }

func (c *countingSampler) Sample(context.Context, *snapshot.Snapshot) []proxytraffic.Server {
	c.calls++
	return []proxytraffic.Server{
		{Name: "a", Read: true, ByGVR: true, Proxied: []proxytraffic.Count{{GVR: "batch/v1/jobs", Code: "200", Count: 2}}, ProxiedTotal: 2, DiscoveryFetches: 3},
		{Name: "b", Note: "GET /metrics: HTTP 403"},
	}
}

// TestLoopLeaseTriggersRead: a lease change is emitted at once and triggers a read after the
// debounce, long before the interval; the counters are sampled on the interval only.
func TestLoopLeaseTriggersRead(t *testing.T) {
	plane := steadyPlane(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	leases := make(chan []Lease, 1)
	var (
		mu     sync.Mutex
		reads  []time.Time
		events []EventDoc
	)
	sampler := &countingSampler{}
	l := &Loop{
		Read: func(context.Context) (*snapshot.Snapshot, error) {
			mu.Lock()
			defer mu.Unlock()
			reads = append(reads, time.Now())
			if len(reads) == 2 {
				time.AfterFunc(50*time.Millisecond, cancel) // the lease-triggered read: enough
			}
			return plane, nil
		},
		Clock: RealClock{}, Interval: time.Hour, Debounce: 20 * time.Millisecond,
		Leases: leases, Traffic: sampler,
		Emit: func(d EventDoc) error {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, d)
			return nil
		},
	}
	base := []Lease{{Name: "apiserver-x", Hostname: "a", Holder: "x_1"}, {Name: "apiserver-y", Hostname: "b", Holder: "y_1"}}
	leases <- base
	go func() {
		time.Sleep(50 * time.Millisecond)
		leases <- base[1:] // a's lease deleted: a graceful stop
	}()
	start := time.Now()
	res, err := l.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(reads) != 2 || reads[1].Sub(start) > 5*time.Second {
		t.Fatalf("%d reads, the second %s after the start: want a read soon after the lease change", len(reads), reads[len(reads)-1].Sub(start))
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, string(e.Type)+" "+e.Server)
	}
	want := "server-added a, server-added b, proxied a, lease-gone a"
	if strings.Join(kinds, ", ") != want {
		t.Errorf("events %q, want %q", strings.Join(kinds, ", "), want)
	}
	s := res.Summary
	if s.Snapshots != 2 || s.LeaseTriggeredReads != 1 || s.Stopped != StoppedInterrupted || sampler.calls != 1 {
		t.Errorf("snapshots %d, lease-triggered %d, stopped %q, sampled %d times; want 2, 1, interrupted, 1", s.Snapshots, s.LeaseTriggeredReads, s.Stopped, sampler.calls)
	}
	tr := s.Traffic
	if tr == nil || len(tr.Totals) != 1 || tr.Totals[0] != (TrafficTotal{Type: Proxied, Server: "a", GVR: "batch/v1/jobs", Code: "200", Count: 2}) ||
		tr.DiscoveryFetches["a"] != 3 || tr.NotRead["b"] == "" {
		t.Errorf("traffic %+v: want 2 jobs proxied by a, its 3 discovery fetches apart, b not read", tr)
	}
}

// TestTrafficEvents: one event per server, GVR and code or type; discovery fetches are none.
func TestTrafficEvents(t *testing.T) {
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	got := TrafficEvents([]proxytraffic.Server{
		{Name: "a", Read: true, ByGVR: true, DiscoveryFetches: 7,
			Proxied:        []proxytraffic.Count{{GVR: "batch/v1/jobs", Code: "200", Count: 4}, {GVR: "batch/v1/jobs", Code: "503", Count: 1}},
			EndpointErrors: []proxytraffic.Count{{GVR: "v1/pods", Type: "endpoint_resolution", Count: 2}},
			SyncErrors:     map[string]float64{"fetch": 1, "decode": 2}},
		{Name: "old", Read: true, Proxied: []proxytraffic.Count{{Code: "200", Count: 9}}},
		{Name: "unread", Note: "403"},
	}, at)
	var s []string
	for _, e := range got {
		s = append(s, fmt.Sprintf("%s %s %s %s%s %v noGVR=%v", e.Type, e.Server, e.GVR, e.Traffic.Code, e.Traffic.Type, e.Traffic.Count, e.Traffic.NoGVR))
	}
	want := []string{
		"proxied a batch/v1/jobs 200 4 noGVR=false",
		"proxied a batch/v1/jobs 503 1 noGVR=false",
		"proxy-errors a v1/pods endpoint_resolution 2 noGVR=false",
		"discovery-sync-errors a  decode 2 noGVR=false",
		"discovery-sync-errors a  fetch 1 noGVR=false",
		"proxied old  200 9 noGVR=true",
	}
	if strings.Join(s, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(s, "\n"), strings.Join(want, "\n"))
	}
}
