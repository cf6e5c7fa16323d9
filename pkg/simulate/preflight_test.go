package simulate

import (
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func checkIDs(r *PreflightReport) map[string]int {
	ids := map[string]int{}
	for _, f := range r.Findings {
		ids[f.Check]++
	}
	return ids
}

func TestPreflight(t *testing.T) {
	s := threeServers(t, "1.36")
	steps, _ := UpgradePlan(s, "1.37", nil)
	tr, _ := NewTrafficReader(strings.NewReader("GET /apis/old.k8s.io/v1beta1/gadgets\nGET /api/v1/pods\nnonsense\n"), "reqs.txt", FormatRequests)
	rep, err := Preflight(PreflightInput{Start: s, Steps: steps, Target: "1.37", Traffic: []*TrafficReader{tr}, TrafficSource: "reqs.txt", TrafficFormat: FormatRequests})
	if err != nil {
		t.Fatal(err)
	}
	ids := checkIDs(rep)
	// old.k8s.io/v1beta1/gadgets, which 1.37 removes, is unserved while the last server that
	// serves it restarts whatever the order: one MVP011 warning for the GVR, naming its client,
	// not an MVP010 per server; its use of a removed API blocks (MVP021).
	if ids["MVP010"] != 0 || ids["MVP011"] != 1 || ids["MVP021"] != 1 || ids["MVP022"] != 1 || ids["MVP001"] != 0 {
		t.Errorf("findings by check: %v", ids)
	}
	for _, f := range rep.Findings {
		if f.Check == "MVP011" && (f.Severity != Warning || f.Subject != "old.k8s.io/v1beta1/gadgets" || !strings.Contains(f.Message, "clients: <none> (1 request(s))") || !strings.Contains(f.Message, "gone after the upgrade")) {
			t.Errorf("MVP011: %+v", f)
		}
	}
	if rep.Summary.Result != "blocking" || rep.Failing(FailOnWarning) != Blocking || rep.Failing(FailOnBlocking) != Blocking || rep.Failing(FailOnNever) != "" {
		t.Errorf("summary %+v", rep.Summary)
	}
	for _, f := range rep.Findings {
		if len(f.Evidence) == 0 || f.Hint == "" || f.Message == "" {
			t.Errorf("finding without evidence, hint or message: %+v", f)
		}
	}
	if rep.Scenario.Target != "1.37" || len(rep.Scenario.Steps) != 6 || rep.Scenario.Servers[0].Version != "v1.36.3" {
		t.Errorf("scenario echo: %+v", rep.Scenario)
	}
}

func TestPreflightConfiguration(t *testing.T) {
	s := threeServers(t, "1.36")
	s.Servers[0].PeerProxy.GateEnabled = snapshot.Ptr(false)
	s.Servers[1].PeerProxy.FilterInstalled = snapshot.Ptr(false)
	s.Servers[2].Reachable, s.Servers[2].Error = false, "connection refused"
	rep, err := Preflight(PreflightInput{Start: s})
	if err != nil {
		t.Fatal(err)
	}
	ids := checkIDs(rep)
	if ids["MVP001"] != 1 || ids["MVP002"] != 1 || ids["MVP003"] != 1 {
		t.Errorf("findings by check: %v", ids)
	}
	if rep.Failing(FailOnWarning) != Blocking {
		t.Errorf("an unreachable apiserver blocks: %+v", rep.Summary)
	}
	s.Servers[2].Reachable, s.Servers[2].Error = true, ""
	rep, _ = Preflight(PreflightInput{Start: s})
	if rep.Summary.Result != "warning" || rep.Failing(FailOnWarning) != Warning || rep.Failing(FailOnBlocking) != "" {
		t.Errorf("warnings only: %+v", rep.Summary)
	}
	clean := threeServers(t, "1.36")
	rep, _ = Preflight(PreflightInput{Start: clean})
	if rep.Summary.Result != "pass" || rep.Failing(FailOnWarning) != "" || len(rep.Findings) != 0 {
		t.Errorf("clean: %+v %+v", rep.Summary, rep.Findings)
	}
}

// TestPreflightConfigLoss: a 1.36 server that switches on old.k8s.io/v1alpha1 keeps the flag
// when upgraded to 1.37, which has no such group/version: a blocking finding naming the flag.
func TestPreflightConfigLoss(t *testing.T) {
	start, err := FromProfiles([]ServerVersion{{Name: "a", Version: "1.36", Proxy: "configured"}, {Name: "b", Version: "1.36", Proxy: "configured"}}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	a := start.Find("a")
	a.Resources = append(a.Resources, snapshot.Resource{Group: "old.k8s.io", Version: "v1alpha1", Resource: "relics", Source: snapshot.SourceBuiltin})
	if c := InferRuntimeConfig(a); c.RuntimeConfig != "old.k8s.io/v1alpha1=true" || len(c.Misfits) > 0 {
		t.Fatalf("inferred %+v", c)
	}
	steps, err := UpgradePlan(start, "1.37", nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Preflight(PreflightInput{Start: start, Steps: steps, Target: "1.37"})
	if err != nil {
		t.Fatal(err)
	}
	var found []Finding
	for _, f := range rep.Findings {
		if f.Check == CheckConfigLoss.ID {
			found = append(found, f)
		}
	}
	if len(found) != 1 || found[0].Severity != Blocking || !strings.Contains(found[0].Hint, "remove old.k8s.io/v1alpha1=true from its --runtime-config") {
		t.Fatalf("config-loss findings %+v", found)
	}
	// Its key is one accept rule (no space), as docs/ci.md states it: group/version@server.
	if k := found[0].Key(); k != "MVP040:old.k8s.io/v1alpha1@a" {
		t.Errorf("key %q", k)
	}
	for _, f := range rep.Findings {
		if r, err := ParseAcceptRule(f.Key(), "key"); err != nil || !r.Matches(f) {
			t.Errorf("finding key %q is not an accept rule that matches it: %v", f.Key(), err)
		}
	}
}

func TestPreflightFailing(t *testing.T) {
	tests := []struct {
		name    string
		summary Summary
		failOn  FailOn
		want    Severity
	}{
		{"pass", Summary{}, FailOnWarning, ""},
		{"info only", Summary{Info: 2}, FailOnWarning, ""},
		{"warnings fail by default", Summary{Warning: 1}, FailOnWarning, Warning},
		{"warnings pass --fail-on=blocking", Summary{Warning: 1}, FailOnBlocking, ""},
		{"blocking wins over warnings", Summary{Blocking: 1, Warning: 3}, FailOnWarning, Blocking},
		{"blocking fails --fail-on=blocking", Summary{Blocking: 1}, FailOnBlocking, Blocking},
		{"never fails", Summary{Blocking: 1, Warning: 1}, FailOnNever, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &PreflightReport{Summary: tt.summary}
			if got := r.Failing(tt.failOn); got != tt.want {
				t.Errorf("Failing(%s) = %q, want %q", tt.failOn, got, tt.want)
			}
		})
	}
}

// TestPreflightWindows: a window the peer proxy would close stays blocking (MVP010) with a hint
// that says so; a window no order avoids is one warning per GVR (MVP011), not blocking.
func TestPreflightWindows(t *testing.T) {
	// 1.36 defaults (no --peer-ca-file, no proxy): once a runs 1.37, b answers 404 for
	// new.k8s.io/v1/widgets while a serves it — the proxy would reach it.
	start, err := FromProfiles([]ServerVersion{{Name: "a", Version: "1.36"}, {Name: "b", Version: "1.36"}}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	steps, _ := UpgradePlan(start, "1.37", nil)
	rep, err := Preflight(PreflightInput{Start: start, Steps: steps})
	if err != nil {
		t.Fatal(err)
	}
	ids := checkIDs(rep)
	subjects := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Check != CheckServedEveryStep.ID {
			continue
		}
		subjects[f.Subject] = true
		server := f.Subject[strings.Index(f.Subject, "@")+1:]
		if f.Severity != Blocking || !strings.Contains(f.Hint, "turn the peer proxy on on "+server) {
			t.Errorf("MVP010 %+v", f)
		}
	}
	if !subjects["new.k8s.io/v1/widgets@b"] || !subjects["old.k8s.io/v1beta1/gadgets@a"] {
		t.Errorf("MVP010 subjects %v", subjects)
	}
	// old.k8s.io/v1beta1/gadgets, which 1.37 removes: unserved while b, the last to serve it,
	// restarts — whatever the order.
	if ids["MVP010"] == 0 || ids["MVP011"] != 1 {
		t.Errorf("findings by check %v", ids)
	}

	// The same with the proxy configured: only the window no order avoids is left, a warning.
	start, _ = FromProfiles([]ServerVersion{{Name: "a", Version: "1.36", Proxy: "configured"}, {Name: "b", Version: "1.36", Proxy: "configured"}}, time.Time{})
	steps, _ = UpgradePlan(start, "1.37", nil)
	rep, _ = Preflight(PreflightInput{Start: start, Steps: steps})
	if ids := checkIDs(rep); ids["MVP010"] != 0 || ids["MVP011"] != 1 || rep.Summary.Result != "warning" {
		t.Errorf("proxy configured: %v %+v", ids, rep.Summary)
	}
}
