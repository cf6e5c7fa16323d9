package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// explainSwitch is one entry of a Decision's `timeline` (docs/explanation.md).
type explainSwitch struct {
	Event     string     `json:"event"`
	Servers   []string   `json:"servers"`
	From      string     `json:"from"`
	To        string     `json:"to"`
	Earliest  *time.Time `json:"earliest"`
	Latest    *time.Time `json:"latest"`
	Triggers  []string   `json:"triggers"`
	IfStopped bool       `json:"ifStopped"`
}

// observedSwitch is a change of kas-b's real answer: the last sample before it and the first
// after it bound when it happened.
type observedSwitch struct {
	from, to      string
	before, after time.Time
}

// TestCrashTimeline: from a snapshot taken at any moment of a crash, explain states every
// coming switch of the answer — 503 transport → 503 endpoint-resolution with the endpoint key's
// bounds, then → 404 at the next peer-discovery rebuild with the events that trigger it
// (docs/behaviour.md §11.4). Three v1.36.3 servers, kas-a the only server of batch/v1. kas-a is
// SIGKILLed; kas-b's real answer for jobs is sampled every 250 ms while snapshots are taken at
// once and 8, 16, 24 and 35 s after the kill and explained; 40 s after the kill kas-c restarts
// gracefully (its identity lease is deleted, then written anew: a lease event). Every observed
// switch must be one a snapshot stated, inside its bounds, and for the rebuild after the
// trigger; every stated switch must be observed.
func TestCrashTimeline(t *testing.T) {
	cp, killed := killTheBatchServer(t, "kas-c")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	b := cp.Server("kas-b")
	dir := t.TempDir()

	// The observer: kas-b's answer, every 250 ms, until told to stop.
	type sample struct {
		at, end time.Time // when the observation began and ended
		key     string
	}
	var (
		mu      sync.Mutex
		samples []sample
		stop    = make(chan struct{})
		done    = make(chan struct{})
	)
	go func() {
		defer close(done)
		for {
			o := observeRoute(ctx, b, batchJobs)
			if o.err == nil {
				mu.Lock()
				samples = append(samples, sample{o.at, time.Now(), observedKey(o.obs)})
				mu.Unlock()
			}
			select {
			case <-stop:
				return
			case <-time.After(250 * time.Millisecond):
			}
		}
	}()

	// The snapshots, each explained for kas-b.
	type stated struct {
		at       time.Time // the snapshot's moment
		renew    time.Time // kas-a's identity lease's last renewal, as recorded
		answer   string
		timeline []explainSwitch
	}
	var snaps []stated
	for i, delay := range []time.Duration{0, 8 * time.Second, 16 * time.Second, 24 * time.Second, 35 * time.Second} {
		time.Sleep(time.Until(killed.Add(delay)))
		snap, _ := mvpctlSnapshot(t, fmt.Sprintf("%s/%d.json", dir, i), []int{2}, "--kubeconfig", b.Kubeconfig)
		e, err := mvpctlExplain(t, snap, batchJobs)
		if err != nil {
			t.Fatal(err)
		}
		s := stated{at: snap.TakenAt}
		if l := snapServer(snap, "kas-a").IdentityLease; l != nil && l.RenewTime != nil {
			s.renew = *l.RenewTime
		}
		for _, d := range e.Servers {
			if d.Server == "kas-b" {
				s.answer, s.timeline = d.key(), d.Timeline
			}
		}
		snaps = append(snaps, s)
	}

	// The trigger: a graceful restart of kas-c, 40 s after the kill.
	time.Sleep(time.Until(killed.Add(40 * time.Second)))
	triggered := time.Now()
	if err := cp.Restart(ctx, "kas-c"); err != nil {
		t.Fatal(err)
	}
	restarted := time.Now()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		mu.Lock()
		n := len(samples)
		last := sample{}
		if n > 0 {
			last = samples[n-1]
		}
		mu.Unlock()
		if last.key == "not-found" && last.at.After(restarted) {
			break
		}
	}
	close(stop)
	<-done

	// The observed switches.
	var observed []observedSwitch
	for i := 1; i < len(samples); i++ {
		if samples[i].key != samples[i-1].key {
			// The answer changed after the earlier observation began and before the later ended.
			observed = append(observed, observedSwitch{samples[i-1].key, samples[i].key, samples[i-1].at, samples[i].end})
		}
	}
	rel := func(at time.Time) string { return fmt.Sprintf("%+.1fs", at.Sub(killed).Seconds()) }
	utc := func(at time.Time) string { return at.UTC().Format("15:04:05.0") }
	var obsLines []string
	for _, o := range observed {
		obsLines = append(obsLines, fmt.Sprintf("  %s → %s between %s and %s UTC (kill %s..%s)", o.from, o.to, utc(o.before), utc(o.after), rel(o.before), rel(o.after)))
	}
	t.Logf("kas-a SIGKILLed at %s UTC; kas-c restarted from %s to %s (kill %s..%s); kas-b's observed switches (%d samples):\n%s",
		utc(killed), utc(triggered), utc(restarted), rel(triggered), rel(restarted), len(samples), strings.Join(obsLines, "\n"))
	if len(observed) != 2 || observed[0].to != "unavailable/endpoint-resolution" || observed[1].to != "not-found" {
		t.Fatalf("observed switches %v, want transport → endpoint-resolution → not-found", observed)
	}

	// Each snapshot's statement against what happened.
	table := []string{"SNAPSHOT  RENEWED  ANSWER                           SWITCH                                       PREDICTED                                          OBSERVED                    OK"}
	for _, s := range snaps {
		matched := map[int]bool{}
		for _, sw := range s.timeline {
			// A switch whose bounds hold the snapshot's moment may have come before it.
			k := -1
			for i, o := range observed {
				if o.from == sw.From && o.to == sw.To {
					k = i
				}
			}
			predicted := "any moment"
			if sw.Earliest != nil {
				predicted = fmt.Sprintf("from %s (kill %s)", utc(*sw.Earliest), rel(*sw.Earliest))
			}
			if sw.Latest != nil {
				predicted += fmt.Sprintf(" by %s (kill %s)", utc(*sw.Latest), rel(*sw.Latest))
			}
			if len(sw.Triggers) > 0 {
				predicted += " on " + strings.Join(sw.Triggers, "|")
			}
			ok, obs := false, "not observed"
			if k >= 0 {
				o := observed[k]
				matched[k] = true
				obs = fmt.Sprintf("%s..%s (kill %s..%s)", utc(o.before), utc(o.after), rel(o.before), rel(o.after))
				// Inside the bounds: the observed interval meets [earliest, latest].
				ok = (sw.Earliest == nil || !o.after.Before(*sw.Earliest)) && (sw.Latest == nil || !o.before.After(*sw.Latest))
				if sw.Event == "peer-discovery-rebuild" {
					// Brought by the stated trigger: after kas-c's restart began, and soon after it ended.
					ok = ok && slices.Contains(sw.Triggers, "identity-lease-event") && o.after.After(triggered) && o.before.Before(restarted.Add(5*time.Second))
				}
			}
			table = append(table, fmt.Sprintf("kill %-5s %-7s %-32s %-44s %-50s %-27s %v", rel(s.at), rel(s.renew), s.answer, sw.Event+" "+sw.From+"→"+sw.To, predicted, obs, ok))
			if !ok {
				t.Errorf("snapshot at kill %s: stated %s %s→%s %s; observed %s", rel(s.at), sw.Event, sw.From, sw.To, predicted, obs)
			}
		}
		for i, o := range observed {
			// Every switch still to come at the snapshot's moment is stated.
			if !matched[i] && o.before.After(s.at) {
				t.Errorf("snapshot at kill %s: the switch %s → %s (kill %s..%s) was not stated", rel(s.at), o.from, o.to, rel(o.before), rel(o.after))
			}
		}
	}
	t.Logf("stated vs observed, kas-b's answer for jobs:\n%s", strings.Join(table, "\n"))
}
