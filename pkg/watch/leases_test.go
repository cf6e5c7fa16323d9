package watch

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestLeaseTracker: the first set is the baseline; then each change is one event, in lease
// order; a renewal by the same holder is none; a lease older than its duration is stale
// once, until it is renewed.
func TestLeaseTracker(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	lease := func(name, holder, addr string, renew time.Duration) Lease {
		return Lease{Name: name, Hostname: "host-" + name, Address: addr, Holder: holder, Renew: t0.Add(renew), Duration: time.Hour}
	}
	tr := NewLeaseTracker()
	steps := []struct {
		set   []Lease // nil: a stale check at
		at    time.Duration
		stale bool
		want  string
	}{
		{set: []Lease{lease("a", "a_1", "10.0.0.1:6443", 0), lease("b", "b_1", "10.0.0.2:6443", 0)}, want: ""},
		{set: []Lease{lease("a", "a_1", "10.0.0.1:6443", 10*time.Second), lease("b", "b_1", "10.0.0.2:6443", 10*time.Second)}, want: ""},
		{set: []Lease{lease("b", "b_1", "10.0.0.2:6443", 10*time.Second)}, want: "lease-gone a a_1→"},
		{set: []Lease{lease("a", "a_2", "10.0.0.1:6443", 20*time.Second), lease("b", "b_1", "10.0.0.2:6443", 10*time.Second)}, want: "lease-added a →a_2"},
		{set: []Lease{lease("a", "a_2", "10.0.0.9:6443", 20*time.Second), lease("b", "b_2", "10.0.0.2:6443", 30*time.Second)}, want: "lease-address-changed a 10.0.0.1:6443→10.0.0.9:6443; lease-new-holder b b_1→b_2"},
		{stale: true, at: time.Hour, want: ""},
		{stale: true, at: time.Hour + 25*time.Second, want: "lease-stale a a_2→"},
		{stale: true, at: 2 * time.Hour, want: "lease-stale b b_2→"},
		{set: []Lease{lease("a", "a_2", "10.0.0.9:6443", 2*time.Hour), lease("b", "b_2", "10.0.0.2:6443", 30*time.Second)}, want: ""},
		{stale: true, at: 3*time.Hour + time.Second, want: "lease-stale a a_2→"},
	}
	for i, st := range steps {
		var got []Event
		if st.stale {
			got = tr.Stale(t0.Add(st.at))
		} else {
			got = tr.Observe(st.set, t0.Add(st.at))
		}
		var s []string
		for _, e := range got {
			s = append(s, fmt.Sprintf("%s %s %s→%s", e.Type, e.Lease, e.From, e.To))
		}
		if strings.Join(s, "; ") != st.want {
			t.Errorf("step %d: %q, want %q", i, strings.Join(s, "; "), st.want)
		}
	}
	if h := tr.Hostname("a"); h != "host-a" {
		t.Errorf("hostname of a: %q", h)
	}
}
