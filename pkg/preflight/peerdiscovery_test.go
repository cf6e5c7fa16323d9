package preflight

import (
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestPreflightPeerDiscoveryRate: MVP031 judges whether a server fetches its peers now — from
// what its peer-aggregated /apis shows it learned — not the lifetime sync-error counter, which
// counts 8–9 hostport_resolution errors on every healthy start (docs/behaviour.md §5.4). On
// the real steady-state capture (kas-b runs without batch/v1 and lists it from its peers).
func TestPreflightPeerDiscoveryRate(t *testing.T) {
	errs := func(fetch, hostport float64) map[string]float64 {
		return map[string]float64{mvp.SyncErrorFetch: fetch, mvp.SyncErrorHostPort: hostport, mvp.SyncErrorLeaseList: 0}
	}
	unlearned := func(s *snapshot.Snapshot) { // kas-b's /apis is its own: it fetched no peer
		b := s.Find("kas-b")
		own := *b.APIs
		b.DefaultAPIs = &own
	}
	for _, tc := range []struct {
		name     string
		change   func(*snapshot.Snapshot)
		severity map[string]Severity // MVP031 by subject; absent: no finding
		message  string              // in the finding on kas-b, when there is one
	}{
		{name: "start-up errors, peers learned: nothing",
			change: func(s *snapshot.Snapshot) {
				s.Find("kas-b").PeerProxy.PeerDiscoverySyncErrors = errs(0, 9)
				s.Find("kas-a").PeerProxy.PeerDiscoverySyncErrors = errs(2, 8)
			}},
		{name: "errors, and the learned view lacks the peers: warning with the cause",
			change: func(s *snapshot.Snapshot) {
				unlearned(s)
				s.Find("kas-b").PeerProxy.PeerDiscoverySyncErrors = errs(4, 0)
			},
			severity: map[string]Severity{"kas-b": Warning},
			message:  "its peer-aggregated /apis lacks what kas-a, kas-c serve(s)"},
		{name: "no errors counted, peers not learned: MVP030's finding, not MVP031's",
			change: unlearned},
		{name: "a peer's published address refuses: warning on the servers that need it",
			change: func(s *snapshot.Snapshot) {
				s.Find("kas-c").PeerProxy.AdvertiseAddressReachable = snapshot.Ptr(false)
			},
			severity: map[string]Severity{"kas-a": Warning, "kas-b": Warning},
			message:  "the published peer address of kas-c did not accept a connection"},
		{name: "start-up hostport errors, and its peers serve nothing it lacks: nothing",
			change: func(s *snapshot.Snapshot) {
				s.Servers = []snapshot.Server{*s.Find("kas-a"), *s.Find("kas-b")}
				s.Find("kas-a").PeerProxy.PeerDiscoverySyncErrors = errs(0, 8)
			}},
		{name: "fetch errors, and its peers serve nothing it lacks: info, the count cannot tell",
			change: func(s *snapshot.Snapshot) {
				s.Servers = []snapshot.Server{*s.Find("kas-a"), *s.Find("kas-b")}
				s.Find("kas-a").PeerProxy.PeerDiscoverySyncErrors = errs(3, 8)
			},
			severity: map[string]Severity{"kas-a": Info}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := loadCaptured(t, "steady")
			tc.change(s)
			rep, err := Run(t.Context(), Options{Start: s})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]Severity{}
			for _, f := range rep.Findings {
				if f.Check != CheckPeerDiscoveryFails.ID {
					continue
				}
				got[f.Subject] = f.Severity
				if f.Subject == "kas-b" && !strings.Contains(f.Message, tc.message) {
					t.Errorf("message %q, want %q", f.Message, tc.message)
				}
				if f.Hint == "" || len(f.Evidence) == 0 {
					t.Errorf("no hint or evidence: %+v", f)
				}
			}
			if len(got) != len(tc.severity) {
				t.Fatalf("MVP031 %v, want %v", got, tc.severity)
			}
			for k, v := range tc.severity {
				if got[k] != v {
					t.Errorf("MVP031 %v, want %v", got, tc.severity)
				}
			}
		})
	}

	// The shipped example: kas-a counted 8 hostport_resolution errors, and lists what only
	// kas-b serves: no MVP031 (it was a warning before).
	ex, err := snapshot.LoadFile("../../examples/skew.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if ex.Find("kas-a").PeerProxy.PeerDiscoverySyncErrors[mvp.SyncErrorHostPort] != 8 {
		t.Fatal("the example no longer records kas-a's 8 start-up errors: the case tests nothing")
	}
	rep, err := Run(t.Context(), Options{Start: ex})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Check == CheckPeerDiscoveryFails.ID {
			t.Errorf("examples/skew.yaml: %+v", f)
		}
	}

	// No document recorded (profiles): fetch errors alone are info.
	start, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.36", Proxy: "configured"}, {Name: "b", Version: "1.36", Proxy: "configured"}}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	start.Find("a").PeerProxy.PeerDiscoverySyncErrors = errs(1, 8)
	rep, _ = Run(t.Context(), Options{Start: start})
	if ids := checkIDs(rep); ids["MVP031"] != 1 || rep.Summary.Info != 1 || rep.Summary.Result != "pass" {
		t.Errorf("profiles: %v %+v", ids, rep.Summary)
	}
}
