package watch

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/simulate"
)

// TestRollingUpgrade feeds the tracker the steps of a simulated rolling upgrade of two default
// 1.36 servers (no peer proxy filter: kube-apiserver's defaults) to 1.37, one step every 10 s.
// While only one server runs 1.37, the other answers 404 for what only 1.37 serves: windows
// open when the first server comes back on 1.37, and close when the second one follows.
func TestRollingUpgrade(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	snaps := upgradeSnapshots(t, t0)
	tr := NewTracker()
	kinds := map[EventKind]int{}
	var log []string
	for i, s := range snaps {
		at := t0.Add(time.Duration(i) * 10 * time.Second)
		for _, e := range tr.Observe(s, at) {
			kinds[e.Type]++
			log = append(log, fmt.Sprintf("%s %s %s %s %s→%s", e.Time.Format("15:04:05"), e.Type, e.Server, e.GVR, e.From, e.To))
		}
	}
	t.Logf("events:\n%s", strings.Join(log, "\n"))
	want := map[EventKind]int{ServerAdded: 2, ServerDown: 2, ServerUp: 2, VersionChanged: 2}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%d %s events, want %d", kinds[k], k, n)
		}
	}
	if kinds[WindowOpened] == 0 || kinds[WindowOpened] != kinds[WindowClosed] {
		t.Errorf("windows opened %d, closed %d: want some, all closed at the end", kinds[WindowOpened], kinds[WindowClosed])
	}
	sum := tr.Summary(t0.Add(time.Minute))
	for _, w := range sum.Windows {
		// a is back on 1.37 at step 2 (t0+20s); b follows at step 4 (t0+40s).
		if w.Server != "b" || w.Opened != t0.Add(20*time.Second) || w.Duration != 20*time.Second || w.Outcome != "not-found" {
			t.Errorf("window %+v: want b, opened at +20s, 20s long, not-found", w)
		}
	}
	if len(sum.Windows) != kinds[WindowOpened] {
		t.Errorf("summary has %d windows, %d were opened", len(sum.Windows), kinds[WindowOpened])
	}
}

// TestWindowStaysOpenWhileUnreachable: a server that cannot be evaluated does not close its
// window; one that comes back does.
func TestWindowStaysOpenWhileUnreachable(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	start, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.37"}, {Name: "b", Version: "1.36"}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	crashed, err := simulate.Apply(start, simulate.Step{Action: simulate.ActionCrash, Server: "b"})
	if err != nil {
		t.Fatal(err)
	}
	upgraded, err := simulate.Apply(crashed, simulate.Step{Action: simulate.ActionUpgrade, Server: "b", To: "1.37"})
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTracker()
	opened := len(filter(tr.Observe(start, t0), WindowOpened))
	if opened == 0 {
		t.Fatal("a default 1.36 server next to a 1.37 one answers 404 for the new GVRs: windows expected")
	}
	if n := len(filter(tr.Observe(crashed, t0.Add(5*time.Second)), WindowClosed)); n != 0 {
		t.Errorf("b crashed: %d windows closed, want none (b cannot be evaluated)", n)
	}
	if n := len(filter(tr.Observe(upgraded, t0.Add(9*time.Second)), WindowClosed)); n != opened {
		t.Errorf("b back on 1.37: %d windows closed, want %d", n, opened)
	}
	for _, w := range tr.Summary(t0.Add(time.Minute)).Windows {
		if w.Duration != 9*time.Second {
			t.Errorf("window %s on %s lasted %s, want 9s", w.GVR, w.Server, w.Duration)
		}
	}
}

func filter(es []Event, k EventKind) []Event {
	var out []Event
	for _, e := range es {
		if e.Type == k {
			out = append(out, e)
		}
	}
	return out
}
