package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestExplainWhatIfCrash: `explain --step crash:kas-a` on a snapshot of a healthy plane says
// what kas-b's clients get when kas-a is SIGKILLed then: a 503 (transport) at once, then the
// 503 of endpoint resolution within the bounds the timeline states, never anything else
// before a peer-discovery rebuild (404). Two v1.36.3 servers, kas-a the only server of
// batch/v1; the snapshot is taken within 2 s of a renewal of kas-a's identity lease and kas-a
// is killed right after it, so that no renewal falls between the two (the what-if crashes the
// server at the snapshot's moment). kas-b's real answer is sampled every 250 ms until the
// stated window has passed.
func TestExplainWhatIfCrash(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the SIGKILL")
	}
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36, ExtraFlags: []string{"--runtime-config=batch/v1=false"}})
	time.Sleep(10 * time.Second) // the young plane's peer-discovery retries end (killTheBatchServer)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	b := cp.Server("kas-b")
	snap := freshSnapshot(t, filepath.Join(t.TempDir(), "before.json"), b)
	if err := cp.Kill("kas-a"); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	type sample struct {
		at  time.Time
		key string
	}
	var samples []sample
	observe := func() {
		if o := observeRoute(ctx, b, batchJobs); o.err == nil {
			samples = append(samples, sample{o.at, observedKey(o.obs)})
		}
	}
	observe() // at once: the explanation is offline and can wait

	r := runMvpctl(t, "explain", "-o", "json", "--snapshot", snap.Path, "--step", "crash:kas-a", batchJobs.Method, batchJobs.Path)
	if r.Exit != 0 {
		t.Fatalf("%s", r)
	}
	var e struct {
		WhatIf  []string          `json:"whatIf"`
		Servers []explainDecision `json:"servers"`
	}
	if err := json.Unmarshal(r.Stdout, &e); err != nil || len(e.Servers) != 1 || e.Servers[0].Server != "kas-b" {
		t.Fatalf("not an explanation of kas-b (%v): %s", err, r.Stdout)
	}
	p := e.Servers[0]
	if !slices.Equal(e.WhatIf, []string{"crash kas-a"}) || p.key() != "unavailable/transport" || len(p.Timeline) != 2 ||
		p.Timeline[0].To != "unavailable/endpoint-resolution" || p.Timeline[0].Earliest == nil || p.Timeline[0].Latest == nil ||
		p.Timeline[1].To != "not-found" {
		t.Fatalf("want 503 transport, then endpoint-resolution, then 404: %s", r.Stdout)
	}
	expiry := p.Timeline[0]

	// kas-b's real answers, until 2 s after the latest moment the key can expire.
	for time.Now().Before(expiry.Latest.Add(2 * time.Second)) {
		observe()
		time.Sleep(250 * time.Millisecond)
	}
	var lines []string
	for _, s := range samples {
		lines = append(lines, fmt.Sprintf("+%-6s %s", s.at.Sub(killed).Round(100*time.Millisecond), s.key))
	}
	t.Logf("predicted: %s, then %s between +%s and +%s; observed:\n%s", p.key(), expiry.To,
		expiry.Earliest.Sub(killed).Round(100*time.Millisecond), expiry.Latest.Sub(killed).Round(100*time.Millisecond), strings.Join(lines, "\n"))

	order := []string{"unavailable/transport", "unavailable/endpoint-resolution", "not-found"}
	if len(samples) == 0 || samples[0].key != p.key() {
		t.Fatalf("kas-b's first answer after the kill is not the predicted %s", p.key())
	}
	switched := false
	for i := 1; i < len(samples); i++ {
		prev, cur := samples[i-1], samples[i]
		if slices.Index(order, cur.key) < slices.Index(order, prev.key) || !slices.Contains(order, cur.key) {
			t.Errorf("+%s: %s after %s: not a switch the timeline states", cur.at.Sub(killed), cur.key, prev.key)
		}
		if prev.key == "unavailable/transport" && cur.key == "unavailable/endpoint-resolution" {
			switched = true
			if cur.at.Before(*expiry.Earliest) || prev.at.After(*expiry.Latest) {
				t.Errorf("the key expired between +%s and +%s, outside the stated +%s–+%s", prev.at.Sub(killed), cur.at.Sub(killed),
					expiry.Earliest.Sub(killed), expiry.Latest.Sub(killed))
			}
		}
	}
	if !switched {
		t.Errorf("kas-b never switched from the 503 of transport to that of endpoint resolution")
	}
}

// freshSnapshot takes a snapshot through s whose kas-a identity lease was renewed at most 2 s
// before it: the next renewal is about 10 s away, the endpoint key lives 5 s at least.
func freshSnapshot(t *testing.T, file string, s *harness.Server) snapFile {
	t.Helper()
	for try := 0; try < 5; try++ {
		snap, _ := mvpctlSnapshot(t, file, []int{0}, "--kubeconfig", s.Kubeconfig)
		a := snapServer(snap, "kas-a")
		if a == nil || a.IdentityLease == nil || a.IdentityLease.RenewTime == nil {
			t.Fatalf("no identity lease of kas-a in %s", file)
		}
		renew := *a.IdentityLease.RenewTime
		if snap.TakenAt.Sub(renew) <= 2*time.Second {
			return snap
		}
		time.Sleep(time.Until(renew.Add(10*time.Second + 200*time.Millisecond)))
	}
	t.Fatal("no snapshot within 2 s of a renewal of kas-a's identity lease in 5 tries")
	return snapFile{}
}
