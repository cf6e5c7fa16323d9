package replay

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRecentIDs: an ID is repeated while it is among the last n, forgotten after; empty IDs
// are never repeated.
func TestRecentIDs(t *testing.T) {
	r := newRecentIDs(2)
	steps := []struct {
		id   string
		want bool
	}{{"a", false}, {"a", true}, {"", false}, {"", false}, {"b", false}, {"a", true}, {"c", false}, {"a", false}, {"c", true}}
	for i, s := range steps {
		if got := r.repeated(s.id); got != s.want {
			t.Errorf("step %d: repeated(%q) = %t, want %t", i, s.id, got, s.want)
		}
	}
}

// TestRecentIDsMatchesMapModel compares the open-addressed set with the plain map and ring it
// replaces, over random IDs from pools small and large against windows small and large, so
// that probe runs, wrap-around and backward-shift deletion all occur.
func TestRecentIDsMatchesMapModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ window, pool, events int }{{1, 3, 200}, {2, 5, 500}, {7, 20, 5000}, {64, 100, 20000}, {1000, 1500, 50000}, {1000, 50000, 50000}} {
		r := newRecentIDs(c.window)
		var gotDone, wantDone []string
		r.done = func(e *idEntry) {
			gotDone = append(gotDone, fmt.Sprintf("%s×%d", e.id, e.events))
			if e.events >= 2 && e.second == nil {
				t.Fatalf("%s seen %d times without its second event", e.id, e.events)
			}
		}
		seen := map[string]int{}
		var ring []string
		next := 0
		for i := range c.events {
			id := fmt.Sprintf("id-%d", rng.IntN(c.pool))
			_, want := seen[id]
			if want {
				seen[id]++
			} else {
				if len(ring) < c.window {
					ring = append(ring, id)
				} else {
					wantDone = append(wantDone, fmt.Sprintf("%s×%d", ring[next], seen[ring[next]]))
					delete(seen, ring[next])
					ring[next] = id
					next = (next + 1) % c.window
				}
				seen[id] = 1
			}
			if got := r.see(id, idHash(id), seenEvent{uri: id}); got != want {
				t.Fatalf("window %d, event %d: see(%q) = %t, want %t", c.window, i, id, got, want)
			}
		}
		if !slices.Equal(gotDone, wantDone) {
			t.Errorf("window %d: entries left the window as %v, want %v", c.window, gotDone[:min(10, len(gotDone))], wantDone[:min(10, len(wantDone))])
		}
	}
}

// TestTimestampOrder: the span of the traffic compares an apiserver's timestamps as strings,
// whatever the number of fraction digits, parses other forms, and skips what is not a time.
func TestTimestampOrder(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"2026-11-23T10:00:00.5Z", "2026-11-23T10:00:00.000200Z", false},
		{"2026-11-23T10:00:00.000200Z", "2026-11-23T10:00:00.5Z", true},
		{"2026-11-23T10:00:00Z", "2026-11-23T10:00:00.000001Z", true},
		{"2026-11-23T10:00:00.10Z", "2026-11-23T10:00:00.1Z", false},
		{"2026-11-23T09:59:59.999Z", "2026-11-23T10:00:00Z", true},
	} {
		if got := stampBefore(tc.a, tc.b); got != tc.want {
			t.Errorf("stampBefore(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	// Other forms are parsed: 11:00+02:00 is 09:00 UTC.
	r := &replayer{}
	for _, ts := range []string{"2026-11-23T10:00:00Z", "2026-11-23T11:00:00+02:00", "not a time", "2026-11-23T10:30:00.5Z"} {
		r.span(ts)
	}
	if r.first != "2026-11-23T11:00:00+02:00" || r.last != "2026-11-23T10:30:00.5Z" {
		t.Errorf("span %s to %s", r.first, r.last)
	}
	for s, want := range map[string]bool{"2026-11-23T10:00:00Z": true, "2026-11-23T10:00:00.123Z": true, "2026-11-23T10:00:0xZ": false, "2026-11-23 10:00:00Z": false, "": false} {
		if utcStamp(s) != want {
			t.Errorf("utcStamp(%q) = %v", s, !want)
		}
	}
}
