package preflight

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/test/fake/planes"
)

func checkIDs(r *Report) map[string]int {
	ids := map[string]int{}
	for _, f := range r.Findings {
		ids[f.Check]++
	}
	return ids
}

func TestPreflight(t *testing.T) {
	s := planes.Three(t, "1.36")
	steps, _ := simulate.UpgradePlan(s, "1.37", nil)
	tr, _ := replay.NewReader(strings.NewReader("GET /apis/old.k8s.io/v1beta1/gadgets\nGET /api/v1/pods\nnonsense\n"), "reqs.txt", replay.FormatRequests)
	rep, err := Run(t.Context(), Options{Start: s, Steps: steps, Target: "1.37", Traffic: []*replay.Reader{tr}, TrafficSource: "reqs.txt", TrafficFormat: replay.FormatRequests})
	if err != nil {
		t.Fatal(err)
	}
	ids := checkIDs(rep)
	// old.k8s.io/v1beta1/gadgets, which 1.37 removes, is unserved while the last server that
	// serves it restarts whatever the order: one MVP011 for the GVR, not one per server, and
	// blocking, since a replayed client uses it; its use of a removed API blocks too (MVP021).
	if ids["MVP010"] != 0 || ids["MVP011"] != 1 || ids["MVP021"] != 1 || ids["MVP022"] != 1 || ids["MVP001"] != 0 {
		t.Errorf("findings by check: %v", ids)
	}
	for _, f := range rep.Findings {
		if f.Check == "MVP011" && (f.Severity != Blocking || f.Subject != "old.k8s.io/v1beta1/gadgets" || !strings.Contains(f.Message, "clients meet it: <none> (1 request(s))") ||
			!strings.Contains(f.Message, "gone after the upgrade") || !strings.HasPrefix(f.Message, "404 on a, b at step 5; ") || len(f.Windows) != 2) {
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
	s := planes.Three(t, "1.36")
	s.Servers[0].PeerProxy.GateEnabled = snapshot.Ptr(false)
	s.Servers[1].PeerProxy.FilterInstalled = snapshot.Ptr(false)
	s.Servers[2].Reachable, s.Servers[2].Error = false, "connection refused"
	rep, err := Run(t.Context(), Options{Start: s})
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
	rep, _ = Run(t.Context(), Options{Start: s})
	if rep.Summary.Result != "warning" || rep.Failing(FailOnWarning) != Warning || rep.Failing(FailOnBlocking) != "" {
		t.Errorf("warnings only: %+v", rep.Summary)
	}
	clean := planes.Three(t, "1.36")
	rep, _ = Run(t.Context(), Options{Start: clean})
	if rep.Summary.Result != "pass" || rep.Failing(FailOnWarning) != "" || len(rep.Findings) != 0 {
		t.Errorf("clean: %+v %+v", rep.Summary, rep.Findings)
	}
}

// TestPreflightConfigLoss: a 1.36 server that switches on old.k8s.io/v1alpha1 keeps the flag
// when upgraded to 1.37, which has no such group/version: a blocking finding naming the flag.
func TestPreflightConfigLoss(t *testing.T) {
	start, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.36", Proxy: "configured"}, {Name: "b", Version: "1.36", Proxy: "configured"}}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	a := start.Find("a")
	a.Resources = append(a.Resources, snapshot.Resource{Group: "old.k8s.io", Version: "v1alpha1", Resource: "relics", Source: snapshot.SourceBuiltin})
	if c := simulate.InferRuntimeConfig(a); c.RuntimeConfig != "old.k8s.io/v1alpha1=true" || len(c.Misfits) > 0 {
		t.Fatalf("inferred %+v", c)
	}
	steps, err := simulate.UpgradePlan(start, "1.37", nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(t.Context(), Options{Start: start, Steps: steps, Target: "1.37"})
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
			r := &Report{Summary: tt.summary}
			if got := r.Failing(tt.failOn); got != tt.want {
				t.Errorf("Failing(%s) = %q, want %q", tt.failOn, got, tt.want)
			}
		})
	}
}

// TestPreflightHarm: a window's severity is its harm to clients. Fixtures: 1.37 removes
// old.k8s.io/v1beta1/gadgets and adds new.k8s.io/v1/widgets; a 1.36 server's --runtime-config
// may enable old.k8s.io/v1alpha1/relics, which 1.37 does not have.
func TestPreflightHarm(t *testing.T) {
	type want struct {
		result string
		// severity of each check:subject
		findings map[string]Severity
		// text each named finding's message holds
		says map[string]string
	}
	for _, tc := range []struct {
		name    string
		proxy   string
		relics  bool   // server a's --runtime-config enables old.k8s.io/v1alpha1
		traffic string // --requests lines; "" for none
		// counters are the start's request counters by server (nil: none recorded)
		counters map[string]*snapshot.RequestCounts
		want     want
	}{
		{"no proxy, no traffic: a GVR every server answers today blocks, one new in the target warns", "", false, "", nil, want{"blocking",
			map[string]Severity{"MVP010:new.k8s.io/v1/widgets": Warning, "MVP010:old.k8s.io/v1beta1/gadgets": Blocking, "MVP011:old.k8s.io/v1beta1/gadgets": Blocking},
			map[string]string{"MVP010:new.k8s.io/v1/widgets": "404 on b at step 2; served by a; new: no apiserver serves it at the start",
				"MVP010:old.k8s.io/v1beta1/gadgets": "404 on a at step 2; served by b; clients may use it: every apiserver answers it at the start"}}},
		{"a request list with no client of either: it has no times, so no span, and a GVR every server answers still blocks", "", false, "GET /api/v1/pods\n", nil, want{"blocking",
			map[string]Severity{"MVP010:new.k8s.io/v1/widgets": Warning, "MVP010:old.k8s.io/v1beta1/gadgets": Blocking, "MVP011:old.k8s.io/v1beta1/gadgets": Blocking},
			map[string]string{"MVP011:old.k8s.io/v1beta1/gadgets": "every apiserver answers it at the start, and the evidence read looks back less than the 2d evidence window (--evidence-window): traffic reqs.txt (requests): no event times, span unknown",
				"MVP010:new.k8s.io/v1/widgets": "; no replayed request uses it"}}},
		{"a replayed client of a GVR new in the target fails today: already failing, a warning naming the servers", "", false, "GET /api/v1/pods\nGET /apis/new.k8s.io/v1/widgets\n", nil, want{"blocking",
			map[string]Severity{"MVP010:new.k8s.io/v1/widgets": Warning, "MVP020:new.k8s.io/v1/widgets": Warning, "MVP010:old.k8s.io/v1beta1/gadgets": Blocking},
			map[string]string{"MVP020:new.k8s.io/v1/widgets": "1 of 1 request(s) for new.k8s.io/v1/widgets already get 404 or 503 at the start on a, b: they fail with or without the upgrade",
				"MVP010:new.k8s.io/v1/widgets": "its replayed clients already get 404 or 503 at the start on a, b, so the upgrade harms none of them"}}},
		{"a replayed client of a GVR that works at the start and fails at a step blocks", "", false, "GET /apis/old.k8s.io/v1beta1/gadgets\nGET /apis/new.k8s.io/v1/widgets\n", nil, want{"blocking",
			map[string]Severity{"MVP021:old.k8s.io/v1beta1/gadgets": Blocking, "MVP010:old.k8s.io/v1beta1/gadgets": Blocking, "MVP020:new.k8s.io/v1/widgets": Warning},
			map[string]string{"MVP010:old.k8s.io/v1beta1/gadgets": "404 on a at step 2; served by b; replayed clients meet it: <none> (1 request(s))"}}},
		{"proxy configured: the window no order avoids blocks without traffic", "configured", false, "", nil, want{"blocking",
			map[string]Severity{"MVP011:old.k8s.io/v1beta1/gadgets": Blocking}, nil}},
		{"a --runtime-config entry the target lacks blocks without traffic", "configured", true, "", nil, want{"blocking",
			map[string]Severity{"MVP040:old.k8s.io/v1alpha1@a": Blocking, "MVP011:old.k8s.io/v1alpha1/relics": Warning}, nil}},
		{"... and still blocks with a request list that holds no client of it (no times, so no span)", "configured", true, "GET /api/v1/pods\nGET /apis/old.k8s.io/v1beta1/gadgets/x\n", nil, want{"blocking",
			map[string]Severity{"MVP040:old.k8s.io/v1alpha1@a": Blocking, "MVP011:old.k8s.io/v1beta1/gadgets": Blocking},
			map[string]string{"MVP040:old.k8s.io/v1alpha1@a": "its clients may use it: the evidence read looks back less than the 2d evidence window"}}},
		{"... warns with a request list that holds no client of it and counters that cover the window", "configured", true, "GET /api/v1/pods\n", counted(nil, nil), want{"warning",
			map[string]Severity{"MVP040:old.k8s.io/v1alpha1@a": Warning},
			map[string]string{"MVP040:old.k8s.io/v1alpha1@a": "none of the 1 replayed requests (a request list: no times) and no request counted on a"}}},
		{"... and blocks naming the client when the traffic holds one", "configured", true, "GET /apis/old.k8s.io/v1alpha1/relics\n", nil, want{"blocking",
			map[string]Severity{"MVP040:old.k8s.io/v1alpha1@a": Blocking, "MVP021:old.k8s.io/v1alpha1/relics": Blocking},
			map[string]string{"MVP040:old.k8s.io/v1alpha1@a": "clients use it: <none> (1 request(s))"}}},
		{"request counters of every server with no client: warnings saying what was read and over what span", "", false, "", counted(nil, nil), want{"warning",
			map[string]Severity{"MVP010:old.k8s.io/v1beta1/gadgets": Warning, "MVP011:old.k8s.io/v1beta1/gadgets": Warning},
			map[string]string{"MVP011:old.k8s.io/v1beta1/gadgets": "every apiserver answers it at the start, but no request counted on a (since it started 3d before 2026-11-27T12:00:00Z), b (since it started 3d before 2026-11-27T12:00:00Z) uses it"}}},
		{"request counters with a client on one server: blocking, naming the count, server and span", "", false, "", counted(map[string]int64{"b": 5}, nil), want{"blocking",
			map[string]Severity{"MVP010:old.k8s.io/v1beta1/gadgets": Blocking, "MVP011:old.k8s.io/v1beta1/gadgets": Blocking},
			map[string]string{"MVP010:old.k8s.io/v1beta1/gadgets": "clients use it: 5 request(s) on b over 3d"}}},
		{"counters of one server not read: may break, saying which and why", "", false, "", counted(nil, map[string]string{"b": "GET /metrics: HTTP 403"}), want{"blocking",
			map[string]Severity{"MVP010:old.k8s.io/v1beta1/gadgets": Blocking},
			map[string]string{"MVP010:old.k8s.io/v1beta1/gadgets": "clients may use it: every apiserver answers it at the start, and no replayed traffic (--audit-log, --requests) or client evidence says none does (request counters of b: GET /metrics: HTTP 403)"}}},
		{"a --runtime-config entry with no counted client warns", "configured", true, "", counted(nil, nil), want{"warning",
			map[string]Severity{"MVP040:old.k8s.io/v1alpha1@a": Warning},
			map[string]string{"MVP040:old.k8s.io/v1alpha1@a": "no request counted on a (since it started 3d before 2026-11-27T12:00:00Z), b ("}}},
		{"... and blocks on a counted client of it, even when the replayed traffic holds none", "configured", true, "GET /api/v1/pods\n", counted(nil, nil, snapshot.RequestCount{Group: "old.k8s.io", Version: "v1alpha1", Resource: "relics", Verb: "LIST", Count: 12}), want{"blocking",
			map[string]Severity{"MVP040:old.k8s.io/v1alpha1@a": Blocking},
			map[string]string{"MVP040:old.k8s.io/v1alpha1@a": "clients use it: 12 request(s) on a over 3d"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.36", Proxy: tc.proxy}, {Name: "b", Version: "1.36", Proxy: tc.proxy}}, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.relics {
				a := start.Find("a")
				a.Resources = append(a.Resources, snapshot.Resource{Group: "old.k8s.io", Version: "v1alpha1", Resource: "relics", Source: snapshot.SourceBuiltin})
			}
			for name, rc := range tc.counters {
				start.Find(name).Requests = rc
			}
			steps, _ := simulate.UpgradePlan(start, "1.37", nil)
			// The counters (counted) cover 3 days: a 2-day window is covered.
			in := Options{Start: start, Steps: steps, Target: "1.37", EvidenceWindow: 48 * time.Hour}
			if tc.traffic != "" {
				tr, _ := replay.NewReader(strings.NewReader(strings.ReplaceAll(tc.traffic, `\n`, "\n")), "reqs.txt", replay.FormatRequests)
				in.Traffic, in.TrafficSource, in.TrafficFormat = []*replay.Reader{tr}, "reqs.txt", replay.FormatRequests
			}
			rep, err := Run(t.Context(), in)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]Finding{}
			for _, f := range rep.Findings {
				got[f.Key()] = f
			}
			for key, sev := range tc.want.findings {
				if f, ok := got[key]; !ok || f.Severity != sev {
					t.Errorf("%s: want %s, got %+v", key, sev, f)
				}
			}
			for key, text := range tc.want.says {
				if !strings.Contains(got[key].Message, text) {
					t.Errorf("%s: message %q lacks %q", key, got[key].Message, text)
				}
			}
			if string(rep.Summary.Result) != tc.want.result {
				t.Errorf("result %s, want %s: %+v", rep.Summary.Result, tc.want.result, rep.Findings)
			}
		})
	}
}

// counted are request counters of servers a and b, read 3 days after each started: gadgets
// counted on the servers of gadgets (by name), a server of errs not read, and extra counts on a.
func counted(gadgets map[string]int64, errs map[string]string, extra ...snapshot.RequestCount) map[string]*snapshot.RequestCounts {
	read := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	started := read.Add(-3*24*time.Hour - time.Hour)
	out := map[string]*snapshot.RequestCounts{}
	for _, name := range []string{"a", "b"} {
		rc := &snapshot.RequestCounts{ReadAt: read, StartedAt: &started, Error: errs[name],
			Counts: []snapshot.RequestCount{{Version: "v1", Resource: "pods", Verb: "LIST", Count: 40}}}
		if n := gadgets[name]; n > 0 {
			rc.Counts = append(rc.Counts, snapshot.RequestCount{Group: "old.k8s.io", Version: "v1beta1", Resource: "gadgets", Verb: "GET", Count: n})
		}
		if name == "a" {
			rc.Counts = append(rc.Counts, extra...)
		}
		if rc.Error != "" {
			rc.Counts = nil
		}
		out[name] = rc
	}
	return out
}

// TestWindowWords: the windows of a GVR in one line, steps as runs.
func TestWindowWords(t *testing.T) {
	risks := []simulate.Risk{
		{StepN: 2, Server: "b", Status: 404, ServedBy: []string{"a"}}, {StepN: 2, Server: "c", Status: 404, ServedBy: []string{"a"}},
		{StepN: 3, Server: "b", Status: 404, ServedBy: []string{"a"}}, {StepN: 3, Server: "c", Status: 404, ServedBy: []string{"a"}},
		{StepN: 4, Server: "c", Status: 404, ServedBy: []string{"a", "b"}}, {StepN: 6, Server: "c", Status: 503, Unavailable: "transport", ServedBy: []string{"a", "b"}},
	}
	if got, want := simulate.WindowsText(risks), "404 on b at steps 2–3, on c at steps 2–4; 503 (transport) on c at step 6"; got != want {
		t.Errorf("windowsText = %q, want %q", got, want)
	}
	if got, want := servedByText(risks), "served by a (steps 2–3); a, b (steps 4, 6)"; got != want {
		t.Errorf("servedByText = %q, want %q", got, want)
	}
	if got, want := simulate.StepsText([]int{5, 0, 2, 3, 3}), "steps 0, 2–3, 5"; got != want {
		t.Errorf("stepsText = %q, want %q", got, want)
	}
}

// TestPreflightHarmOutage: a request that fails at the start on one server but works on
// another is harmed when, at some step, it works on no reachable server (the one it worked on
// is down): a client sent to it lands on the other. Fixture: a serves old.k8s.io/v1alpha1/relics
// (--runtime-config), b does not and has no proxy.
func TestPreflightHarmOutage(t *testing.T) {
	start, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.36"}, {Name: "b", Version: "1.36"}}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	a := start.Find("a")
	a.Resources = append(a.Resources, snapshot.Resource{Group: "old.k8s.io", Version: "v1alpha1", Resource: "relics", Source: snapshot.SourceBuiltin})
	stop, err := simulate.ParseStep("stop:a")
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := replay.NewReader(strings.NewReader("GET /apis/old.k8s.io/v1alpha1/relics\n"), "reqs.txt", replay.FormatRequests)
	rep, err := Run(t.Context(), Options{Start: start, Steps: []simulate.Step{stop}, Traffic: []*replay.Reader{tr}, TrafficSource: "reqs.txt", TrafficFormat: replay.FormatRequests})
	if err != nil {
		t.Fatal(err)
	}
	g := rep.Traffic.GVRs[0]
	if g.AtRisk != 1 || g.AlreadyFailing != 0 || !slices.Equal(g.AtRiskSteps, []int{1}) {
		t.Errorf("relics: %+v, want at risk at step 1 (stop a), not already failing", g)
	}
	for _, f := range rep.Findings {
		if f.Check == CheckTrafficFails.ID && f.Severity != Blocking {
			t.Errorf("%s: %s, want blocking", f.Key(), f.Severity)
		}
	}
}
