package route

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// crashedSince is server a (the only server of batch/v1) as a snapshot records it when its
// identity lease was last renewed `since` before the snapshot and it no longer answers: the
// endpoint key still lives, may live (a window) or has expired, as discovery decides it.
func crashedSince(since time.Duration) snapshot.Server {
	return with(down(server("a", "v1.36.3", all...), true), func(s *snapshot.Server) {
		renew := takenAt.Add(-since)
		s.IdentityLease.RenewTime = &renew
		w := mvp.EndpointWindowAfter(renew)
		s.PeerProxy.EndpointResolvable = nil
		if resolves, known := mvp.EndpointAt(w, takenAt); known {
			s.PeerProxy.EndpointResolvable = snapshot.Ptr(resolves)
		} else {
			s.PeerProxy.EndpointWindow = &w
		}
	})
}

// learnedB is b, without batch/v1, having learned batch/v1/jobs from its peers.
func learnedB() snapshot.Server {
	return withAggregated(server("b", "v1.36.3", noBatch...), "apps/v1/deployments", "batch/v1/jobs")
}

// switchText is a switch in one line: event, from → to, bounds relative to the snapshot.
func switchText(sw Switch) string {
	at := func(t *time.Time) string {
		if t == nil {
			return "-"
		}
		return t.Sub(takenAt).String()
	}
	s := fmt.Sprintf("%s %s→%s [%s, %s]", sw.Event, sw.From, sw.To, at(sw.Earliest), at(sw.Latest))
	if len(sw.AlsoPossible) > 0 {
		s += " also " + strings.Join(sw.AlsoPossible, ",")
	}
	if sw.IfStopped {
		s += " if stopped"
	}
	return s
}

// TestCrashTimeline: explain states every coming switch of the answer after a crash, whatever
// the moment of the snapshot: transport → endpoint-resolution with the endpoint key's window,
// then → 404 at the next peer-discovery rebuild, by the identity lease's garbage collection at
// the latest (docs/behaviour.md §11.4).
func TestCrashTimeline(t *testing.T) {
	jobs := "/apis/batch/v1/namespaces/default/jobs"
	// Bounds relative to the snapshot, for a lease renewed `since` before it.
	expiry := func(since time.Duration) string {
		return fmt.Sprintf("endpoint-key-expiry unavailable/transport→unavailable/endpoint-resolution [%s, %s]",
			mvp.EndpointLeaseTTL-mvp.RenewInterval-since, mvp.RenewInterval+mvp.RenewJitter+mvp.EndpointLeaseTTL+mvp.EtcdExpiryLag-since)
	}
	rebuild := func(since time.Duration) string {
		return fmt.Sprintf("peer-discovery-rebuild unavailable/endpoint-resolution→not-found [-, %s]", mvp.IdentityLeaseDuration+mvp.IdentityLeaseGCPeriod-since)
	}
	for _, tt := range []struct {
		name    string
		servers []snapshot.Server
		want    []string
		plain   []string // substrings of the plain lines, in order
	}{{
		// The case of a snapshot taken 1.5 s after a SIGKILL, the lease renewed 1 s before it:
		// the key certainly still lives, and nothing yet proves that a stopped.
		name:    "2.5 s after the renewal: key lives",
		servers: []snapshot.Server{crashedSince(2500 * time.Millisecond), learnedB()},
		want:    []string{expiry(2500*time.Millisecond) + " if stopped", rebuild(2500*time.Millisecond) + " if stopped"},
		plain: []string{"if a stopped (a did not answer, but renewed its identity lease 2.5s before the snapshot",
			"between 12:00:02 and 12:00:24 UTC (2s–24s after the snapshot), when the published address of a expires: 503 (no peer address resolves)",
			"at b's next peer-discovery rebuild, which drops a: 404 Not Found — it comes when an apiserver joins, an apiserver of 1.35+ restarts or stops gracefully, or a pending retry",
			"by 13:59:58 UTC at the latest", "a rebuild before the address of a expires brings it at once"},
	}, {
		name:    "12 s after: inside the window",
		servers: []snapshot.Server{crashedSince(12 * time.Second), learnedB()},
		want:    []string{expiry(12 * time.Second), rebuild(12 * time.Second)},
		plain:   []string{"as the crash of a unfolds", "(the snapshot falls in between: it may have come already)"},
	}, {
		name:    "20 s after: inside the window, past its middle",
		servers: []snapshot.Server{crashedSince(20 * time.Second), learnedB()},
		want:    []string{expiry(20 * time.Second), rebuild(20 * time.Second)},
	}, {
		name:    "30 s after: key expired",
		servers: []snapshot.Server{crashedSince(30 * time.Second), learnedB()},
		want:    []string{rebuild(30 * time.Second)},
		plain:   []string{"at b's next peer-discovery rebuild"},
	}, {
		name: "already dropped by a rebuild: nothing to come",
		servers: []snapshot.Server{with(crashedSince(30*time.Second), func(s *snapshot.Server) { s.PeerProxy.DroppedByPeers = true }),
			learnedB()},
	}, {
		name: "a 1.34 server with the filter exits at a rebuild while the key lives",
		servers: []snapshot.Server{crashedSince(12 * time.Second),
			withAggregated(server("b", "v1.34.4", noBatch...), "apps/v1/deployments", "batch/v1/jobs")},
		want:  []string{expiry(12 * time.Second), rebuild(12 * time.Second)},
		plain: []string{"", "except that b exits then (the warning above)"},
	}, {
		name:    "the request is served locally: no switch",
		servers: []snapshot.Server{crashedSince(2500 * time.Millisecond), server("b", "v1.36.3", all...)},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			e, err := NewRouter(snap(tt.servers...)).Explain(parsed(t, jobs), "b")
			if err != nil {
				t.Fatal(err)
			}
			d := e.Servers[0]
			var got []string
			for _, sw := range d.Timeline {
				got = append(got, switchText(sw))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("timeline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if len(d.Plain.Timeline) != len(d.Timeline) {
				t.Errorf("%d plain lines for %d switches: %q", len(d.Plain.Timeline), len(d.Timeline), d.Plain.Timeline)
			}
			text := d.Plain.TimelineIntro + "\n" + strings.Join(d.Plain.Timeline, "\n")
			rest := text
			for _, p := range tt.plain {
				i := strings.Index(rest, p)
				if i < 0 {
					t.Errorf("plain timeline lacks %q (in order):\n%s", p, text)
					break
				}
				rest = rest[i+len(p):]
			}
		})
	}
}
