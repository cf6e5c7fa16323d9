package route

import (
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestProxyWording: the words of a proxied decision and of a candidate whose endpoint does not
// resolve (unresolvable), for one peer or several (proxiedNames).
func TestProxyWording(t *testing.T) {
	const jobs = "/apis/batch/v1/namespaces/default/jobs"
	down := func(s snapshot.Server) snapshot.Server { s.Reachable, s.Error = false, "connection refused"; return s }
	tests := []struct {
		name                        string
		servers                     []snapshot.Server
		reason, answer, result, fix string
	}{
		{name: "one peer", servers: []snapshot.Server{server("a", "1.36.0", "v1/pods", "batch/v1/jobs"), server("b", "1.36.0", "v1/pods")},
			reason: "proxied to a", answer: "proxied to a — b does not serve batch/v1 itself; a does"},
		{name: "two peers", servers: []snapshot.Server{server("a", "1.36.0", "v1/pods", "batch/v1/jobs"), server("c", "1.36.0", "v1/pods", "batch/v1/jobs"), server("b", "1.36.0", "v1/pods")},
			reason: "proxied to one of a, c (random)", answer: "proxied to one of a, c (picked at random) — b does not serve batch/v1 itself; a, c do"},
		{name: "down", servers: []snapshot.Server{down(server("a", "1.36.0", "v1/pods", "batch/v1/jobs")), server("b", "1.36.0", "v1/pods")},
			result: "endpoint does not resolve (the peer is down and its 15 s endpoint lease has expired)",
			answer: "503 Service Unavailable — a serves batch/v1, but its address cannot be resolved",
			fix:    "bring a back up: it publishes its address again once it runs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := ParseRequest("GET", jobs)
			if err != nil {
				t.Fatal(err)
			}
			d, err := NewRouter(snap(tt.servers...)).Decide("b", req)
			if err != nil {
				t.Fatal(err)
			}
			if tt.reason != "" && d.Reason != tt.reason {
				t.Errorf("reason %q, want %q", d.Reason, tt.reason)
			}
			if tt.answer != "" && d.Plain.Answer != tt.answer {
				t.Errorf("answer %q, want %q", d.Plain.Answer, tt.answer)
			}
			var results []string
			for _, c := range d.Candidates {
				results = append(results, c.Result)
			}
			if tt.fix != "" && !strings.Contains(strings.Join(d.Plain.WhyNot, "\n"), tt.fix) {
				t.Errorf("why-not %q, want %q", d.Plain.WhyNot, tt.fix)
			}
			if tt.result != "" && !strings.Contains(strings.Join(results, "\n"), tt.result) {
				t.Errorf("candidate results %q, want one %q", results, tt.result)
			}
		})
	}
}
