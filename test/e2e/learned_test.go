package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestUnlearnedPeers: a server that never learns what its peer serves answers 404 where a
// peer could have served the request (docs/behaviour.md §4.2), and mvpctl predicts it from the
// server's own peer-aggregated /apis, with the cause; once the misconfiguration is fixed both
// reality and prediction flip back to proxied. Two ways to get there, each on its own plane:
//   - wrong-peer-ca: mvc-a's --peer-ca-file is the front-proxy CA, which signed no serving
//     certificate, so its peer-discovery fetches fail TLS verification;
//   - unreachable-advertise: mvc-b advertises a port nothing listens on, so mvc-a cannot fetch
//     mvc-b's discovery.
//
// In both, mvc-a runs with batch/v1 off and only mvc-b serves it.
func TestUnlearnedPeers(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the misconfigured planes")
	}
	for _, tc := range []struct {
		name      string
		a, b      harness.ServerSpec
		fix       string // the server that is restarted with the fix
		fixSpec   func(*harness.ServerSpec)
		wantCause string // the first cause mvpctl names, and a word of its text
		causeText string
	}{
		{name: "wrong-peer-ca",
			a:   harness.ServerSpec{Name: "mvc-a", Version: harness.V1_36, WrongPeerCA: true, ExtraFlags: []string{"--runtime-config=batch/v1=false"}},
			b:   harness.ServerSpec{Name: "mvc-b", Version: harness.V1_36},
			fix: "mvc-a", fixSpec: func(s *harness.ServerSpec) { s.WrongPeerCA = false },
			wantCause: "tls-trust", causeText: "--peer-ca-file"},
		{name: "unreachable-advertise",
			a:   harness.ServerSpec{Name: "mvc-a", Version: harness.V1_36, ExtraFlags: []string{"--runtime-config=batch/v1=false"}},
			b:   harness.ServerSpec{Name: "mvc-b", Version: harness.V1_36, UnreachableAdvertise: true},
			fix: "mvc-b", fixSpec: func(s *harness.ServerSpec) { s.UnreachableAdvertise = false },
			wantCause: "advertise-address", causeText: "peer-advertise address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp := harness.Start(t, tc.a, tc.b)
			ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
			defer cancel()
			if err := cp.WaitPeers(ctx); err != nil {
				t.Fatal(err)
			}
			// mvc-a's failing fetches are retried with backoff; give them a moment to fail
			// for real, so the snapshot sees the state that lasts.
			time.Sleep(3 * time.Second)
			for _, s := range cp.Servers() {
				leases, err := s.IdentityLeases(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range leases {
					t.Logf("via %s: identity lease %s advertises %s", s.Name, l.Name, l.Annotations["kubernetes.io/peer-advertise-address"])
				}
				break
			}
			dir := t.TempDir()
			// Read each server at its own URL: mvc-b's advertised address may be the dead one.
			endpoints := []string{"--kubeconfig", cp.Kubeconfig, "--leases=false", "--endpoint", cp.Server("mvc-a").URL, "--endpoint", cp.Server("mvc-b").URL}
			snap, _ := mvpctlSnapshot(t, dir+"/broken.json", []int{0}, endpoints...)
			// The evidence the snapshot records: mvc-a's failing fetches (1.36 counts them), and
			// whether mvc-b's published address accepts connections.
			a, b := snapServer(snap, "mvc-a"), snapServer(snap, "mvc-b")
			t.Logf("mvc-a peer discovery sync errors %v; mvc-b's published address reachable %s", a.PeerProxy.PeerDiscoverySyncErrors, fmtBoolPtr(b.PeerProxy.AdvertiseAddressReachable))
			if a.PeerProxy.PeerDiscoverySyncErrors["fetch_discovery"] == 0 {
				t.Errorf("mvc-a cannot fetch mvc-b's discovery, but the snapshot records no fetch_discovery sync errors: %v", a.PeerProxy.PeerDiscoverySyncErrors)
			}
			if r := b.PeerProxy.AdvertiseAddressReachable; r == nil || *r != (tc.name != "unreachable-advertise") {
				t.Errorf("mvc-b's published address reachable = %s, want %v", fmtBoolPtr(r), tc.name != "unreachable-advertise")
			}

			// explain: 404 on mvc-a for jobs, with the cause first.
			jobs := "/apis/batch/v1/namespaces/default/jobs"
			r := runMvpctl(t, "explain", "--snapshot", snap.Path, "--apiserver", "mvc-a", "-o", "json", "GET", jobs)
			var exp struct {
				Servers []struct {
					Outcome string `json:"outcome"`
					Reason  string `json:"reason"`
					Causes  []struct{ Name, Text, Confirm string }
				} `json:"servers"`
			}
			if err := json.Unmarshal(r.Stdout, &exp); err != nil || r.Exit != 0 || len(exp.Servers) != 1 {
				t.Fatalf("%s (%v)\n%s", r, err, r.Stdout)
			}
			d := exp.Servers[0]
			t.Logf("explain on mvc-a: %s — %s; causes %+v", d.Outcome, d.Reason, d.Causes)
			if d.Outcome != "not-found" || len(d.Causes) == 0 || d.Causes[0].Name != tc.wantCause || !strings.Contains(d.Causes[0].Text, tc.causeText) {
				t.Errorf("explain on mvc-a predicts %s with causes %+v; want not-found, first cause %s naming %q", d.Outcome, d.Causes, tc.wantCause, tc.causeText)
			}

			// Every prediction against what the servers do, jobs on mvc-a answering 404 for real.
			reqs := append(skewRequests(t, snap), sharedRequests()...)
			c := compareRouting(t, ctx, cp, snap, reqs, time.Time{}, tc.name+": mvc-a has not learned mvc-b's batch/v1")
			c.expect(t, "mvc-a", "/apis/batch/v1/", "not-found")

			// probe agrees with every prediction.
			rep, _ := probeCmdRun(t, cp.Kubeconfig, 0, append(endpoints[2:], "--resource", "batch/v1/jobs")...)
			if rep.Summary.Mismatch != 0 {
				t.Errorf("probe: %d mismatches, want 0", rep.Summary.Mismatch)
			}

			// preflight blocks: mvc-a does not advertise what its peer serves.
			// (--to the version they run: a plan of keep steps, the checks of the start state.)
			pf := runMvpctl(t, "preflight", "--snapshot", snap.Path, "--to", "1.36", "-o", "json")
			var pre struct {
				Findings []struct{ Check, Subject, Message, Hint string }
			}
			if err := json.Unmarshal(pf.Stdout, &pre); err != nil {
				t.Fatalf("%s: %v", pf, err)
			}
			checks := map[string]string{}
			for _, f := range pre.Findings {
				if f.Subject == "mvc-a" {
					checks[f.Check] = f.Message + " — " + f.Hint
				}
			}
			t.Logf("preflight on mvc-a: %v", checks)
			if pf.Exit != 3 || checks["MVP030"] == "" || !strings.Contains(checks["MVP030"], tc.causeText) || !strings.Contains(checks["MVP031"], tc.causeText) {
				t.Errorf("preflight on the broken plane: want exit 3, MVP030 (blocking) and MVP031 on mvc-a naming %q; got %s\n%v", tc.causeText, pf, checks)
			}

			// The fix: restart the misconfigured server right; predictions and reality flip back.
			if err := cp.Reconfigure(ctx, tc.fix, tc.fixSpec); err != nil {
				t.Fatal(err)
			}
			if err := cp.WaitPeers(ctx); err != nil {
				t.Fatal(err)
			}
			fixed, _ := mvpctlSnapshot(t, dir+"/fixed.json", []int{0}, endpoints...)
			c = compareRouting(t, ctx, cp, fixed, reqs, time.Time{}, tc.name+": fixed")
			c.expect(t, "mvc-a", "/apis/batch/v1/", "proxied")
		})
	}
}
