package simulate

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

var at = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func threeServers(t *testing.T, version string) *snapshot.Snapshot {
	t.Helper()
	s, err := FromProfiles([]ServerVersion{{Name: "a", Version: version, Proxy: "configured"}, {Name: "b", Version: version, Proxy: "configured"}, {Name: "c", Version: version, Proxy: "configured"}}, at)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func decide(t *testing.T, s *snapshot.Snapshot, server, path string) route.Decision {
	t.Helper()
	req, err := route.ParseRequest("GET", path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := route.NewRouter(s).Decide(server, req)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Each step's consequence, per docs/behaviour.md.
func TestApplySteps(t *testing.T) {
	jobs := "/apis/batch/v1/jobs"
	widgets := "/apis/new.k8s.io/v1/widgets"
	tests := []struct {
		name        string
		version     string
		steps       []Step
		server      string
		path        string
		outcome     mvp.Outcome
		unavailable mvp.Unavailable503
	}{
		{"upgraded server serves the new API itself", "1.36", []Step{{Action: ActionUpgrade, Server: "a", To: "1.37"}}, "a", widgets, mvp.Local, ""},
		{"old servers proxy the new API to it", "1.36", []Step{{Action: ActionUpgrade, Server: "a", To: "1.37"}}, "b", widgets, mvp.Proxied, ""},
		{"crash keeps the lease: 503", "1.36", []Step{{Action: ActionUpgrade, Server: "a", To: "1.37"}, {Action: ActionCrash, Server: "a"}}, "b", widgets, mvp.Unavailable, mvp.EndpointResolution},
		{"graceful stop on 1.35+ deletes the lease: 404", "1.36", []Step{{Action: ActionUpgrade, Server: "a", To: "1.37"}, {Action: ActionStop, Server: "a"}}, "b", widgets, mvp.NotFound, ""},
		{"graceful stop before 1.35 keeps the lease: 503", "1.37", []Step{{Action: ActionUpgrade, Server: "c", To: "1.34"}, {Action: ActionStop, Server: "c"}}, "a", "/apis/old.k8s.io/v1beta1/gadgets", mvp.Unavailable, mvp.EndpointResolution},
		{"served everywhere: local", "1.36", []Step{{Action: ActionUpgrade, Server: "a", To: "1.37"}}, "b", jobs, mvp.Local, ""},
		{"restart after a crash: proxied again", "1.36", []Step{{Action: ActionUpgrade, Server: "a", To: "1.37"}, {Action: ActionCrash, Server: "a"}, {Action: ActionStart, Server: "a"}}, "b", widgets, mvp.Proxied, ""},
		// A crash leaves a dead server in its peers' caches until their next rebuild, which any
		// identity lease event causes (another server starting, restarting or stopping on 1.35+).
		{"crash, then another server stops: the rebuild drops the dead one, 404", "1.36", []Step{{Action: ActionUpgrade, Server: "a", To: "1.37"}, {Action: ActionCrash, Server: "a"}, {Action: ActionStop, Server: "c"}}, "b", widgets, mvp.NotFound, ""},
		{"crash, then another server restarts: 404", "1.36", []Step{{Action: ActionUpgrade, Server: "a", To: "1.37"}, {Action: ActionCrash, Server: "a"}, {Action: ActionStop, Server: "c"}, {Action: ActionStart, Server: "c"}}, "b", widgets, mvp.NotFound, ""},
		{"crash, then another crash: no lease event, still 503", "1.36", []Step{{Action: ActionUpgrade, Server: "a", To: "1.37"}, {Action: ActionCrash, Server: "a"}, {Action: ActionCrash, Server: "c"}}, "b", widgets, mvp.Unavailable, mvp.EndpointResolution},
		{"stop before 1.35, then another server restarts: 404", "1.37", []Step{{Action: ActionUpgrade, Server: "c", To: "1.34"}, {Action: ActionStop, Server: "c"}, {Action: ActionStop, Server: "b"}, {Action: ActionStart, Server: "b"}}, "a", "/apis/old.k8s.io/v1beta1/gadgets", mvp.NotFound, ""},
		{"gate off on the asking server: 404", "1.36", []Step{{Action: ActionUpgrade, Server: "a", To: "1.37"}, {Action: ActionGateOff, Server: "b"}}, "b", widgets, mvp.NotFound, ""},
		{"gate off on the serving server: never learned, 404", "1.36", []Step{{Action: ActionUpgrade, Server: "a", To: "1.37"}, {Action: ActionGateOff, Server: "a"}}, "b", widgets, mvp.NotFound, ""},
		{"no peer CA on the asking server: no filter, 404", "1.36", []Step{{Action: ActionUpgrade, Server: "a", To: "1.37"}, {Action: ActionDropPeerCA, Server: "b"}}, "b", widgets, mvp.NotFound, ""},
		{"no peer CA on the serving server: still a target", "1.36", []Step{{Action: ActionUpgrade, Server: "a", To: "1.37"}, {Action: ActionDropPeerCA, Server: "a"}}, "b", widgets, mvp.Proxied, ""},
		{"removed API is proxied to old servers", "1.36", []Step{{Action: ActionUpgrade, Server: "a", To: "1.37"}}, "a", "/apis/old.k8s.io/v1beta1/gadgets", mvp.Proxied, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := threeServers(t, tt.version)
			for _, st := range tt.steps {
				next, err := Apply(s, st)
				if err != nil {
					t.Fatal(err)
				}
				s = next
			}
			d := decide(t, s, tt.server, tt.path)
			if d.Outcome != tt.outcome || d.Unavailable != tt.unavailable {
				t.Errorf("outcome %s/%s, want %s/%s: %s", d.Outcome, d.Unavailable, tt.outcome, tt.unavailable, d.Reason)
			}
		})
	}
}

func TestStopBefore135KeepsLease(t *testing.T) {
	s := threeServers(t, "1.34")
	s, err := Apply(s, Step{Action: ActionStop, Server: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Find("a").IdentityLease == nil {
		t.Error("a 1.34 server keeps its identity lease on a graceful stop (docs/behaviour.md §11.4)")
	}
}

func TestApplyDoesNotMutate(t *testing.T) {
	s := threeServers(t, "1.36")
	before, _ := s.Marshal(true)
	if _, err := Apply(s, Step{Action: ActionUpgrade, Server: "a", To: "1.37"}); err != nil {
		t.Fatal(err)
	}
	after, _ := s.Marshal(true)
	if !bytes.Equal(before, after) {
		t.Error("Apply changed its input")
	}
	s.Servers[0].APIs = &snapshot.DiscoveryDocument{ETag: `"X"`}
	next, err := Apply(s, Step{Action: ActionCrash, Server: "b"})
	if err != nil || next.Servers[0].APIs != nil {
		t.Errorf("a step must drop the served discovery documents, which no longer describe the control plane: %v", err)
	}
	if _, err := Apply(s, Step{Action: ActionCrash, Server: "z"}); err == nil || !strings.Contains(err.Error(), `no server "z"`) {
		t.Errorf("unknown server: %v", err)
	}
	if _, err := Apply(s, Step{Action: ActionUpgrade, Server: "a", To: "1.99"}); err == nil || !strings.Contains(err.Error(), "no profile for Kubernetes 1.99") {
		t.Errorf("unknown version: %v", err)
	}
}

func TestRollingUpgrade(t *testing.T) {
	s := threeServers(t, "1.36")
	steps, err := UpgradePlan(s, "1.37", []string{"c", "b", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 6 || steps[0] != (Step{Action: ActionStop, Server: "c"}) || steps[1] != (Step{Action: ActionUpgrade, Server: "c", To: "1.37"}) {
		t.Fatalf("plan = %v", steps)
	}
	sim, err := Run(s, steps)
	if err != nil {
		t.Fatal(err)
	}
	if len(sim.Steps) != 7 {
		t.Fatalf("%d steps", len(sim.Steps))
	}
	if !reflect.DeepEqual(sim.Removed, []string{"old.k8s.io/v1beta1/gadgets"}) {
		t.Errorf("removed = %v", sim.Removed)
	}
	if !reflect.DeepEqual(sim.Profiles, []string{"v1.36.3", "v1.37.1"}) {
		t.Errorf("profiles = %v", sim.Profiles)
	}
	// At the last step (a stopped... then upgraded) nothing serves gadgets: not at risk, removed.
	// While c is down (step 1) nothing differs between servers: no risk. While b is down and c
	// upgraded (step 3) widgets is served by c only and gadgets by a: no 404 anywhere.
	var got []string
	for _, r := range sim.AtRisk {
		got = append(got, r.Step+": "+r.Server+" "+r.GVR+" "+string(r.Outcome))
	}
	// When a is stopped (step 5), gadgets is served only by the stopped a: b and c answer 404.
	want := []string{
		"stop a: b old.k8s.io/v1beta1/gadgets not-found",
		"stop a: c old.k8s.io/v1beta1/gadgets not-found",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("at risk:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := UpgradePlan(s, "1.37", []string{"a", "a"}); err == nil {
		t.Error("a server listed twice must be an error")
	}
	if _, err := UpgradePlan(s, "1.37", []string{"x"}); err == nil {
		t.Error("an unknown server must be an error")
	}
}

func TestScenarioFileAndFlags(t *testing.T) {
	sc := Scenario{APIVersion: snapshot.APIVersion, Kind: ScenarioKind, From: From{Servers: []ServerVersion{{Name: "a", Version: "1.36"}}},
		Steps: []Step{{Action: ActionUpgrade, Server: "a", To: "1.37"}}}
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		mutate func(*Scenario)
		want   string
	}{
		{func(s *Scenario) { s.Kind = "Snapshot" }, "kind"},
		{func(s *Scenario) { s.From.Snapshot = "x.yaml" }, "exactly one of snapshot and servers"},
		{func(s *Scenario) { s.Steps[0].Action = "reboot" }, `steps[0]: action: "reboot" is not one of`},
		{func(s *Scenario) { s.Steps[0].To = "" }, "steps[0]: to:"},
		{func(s *Scenario) { s.Steps[0].Server = "" }, "steps[0]: server"},
	}
	for _, b := range bad {
		c := sc
		c.Steps = append([]Step(nil), sc.Steps...)
		b.mutate(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("got %v, want %q", err, b.want)
		}
	}
	if sv, err := ParseServers("a=1.36, b=1.37"); err != nil || !reflect.DeepEqual(sv, []ServerVersion{{Name: "a", Version: "1.36"}, {Name: "b", Version: "1.37"}}) {
		t.Errorf("ParseServers: %v %v", sv, err)
	}
	if _, err := ParseServers("a"); err == nil {
		t.Error("ParseServers(a) should fail")
	}
	if st, err := ParseStep("upgrade:a=1.37"); err != nil || st != (Step{Action: ActionUpgrade, Server: "a", To: "1.37"}) {
		t.Errorf("ParseStep: %v %v", st, err)
	}
	if _, err := ParseStep("crash"); err == nil {
		t.Error("ParseStep(crash) should fail")
	}
}

// TestPeerDiscoverySteps: a server that cannot learn its peers (wrong peer CA) or that no peer
// can learn (unreachable advertise address) answers 404 where it proxied, and the restoring
// step brings the proxying back.
func TestPeerDiscoverySteps(t *testing.T) {
	start, err := FromProfiles([]ServerVersion{{Name: "a", Version: "1.37", Proxy: "configured"}, {Name: "b", Version: "1.36", Proxy: "configured"}}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	// A GVR only a (1.37) serves.
	var only snapshot.GVR
	b := start.Find("b")
	for _, r := range start.Find("a").Resources {
		if !b.Serves(r.GVR()) && r.Group != "" {
			only = r.GVR()
			break
		}
	}
	if only.Resource == "" {
		t.Fatal("profiles 1.37 and 1.36 serve the same GVRs")
	}
	cell := func(s *snapshot.Snapshot, server string) string {
		req, err := route.ParseRequest("GET", "/apis/"+only.Group+"/"+only.Version+"/"+only.Resource)
		if err != nil {
			t.Fatal(err)
		}
		d, err := route.NewRouter(s).Decide(server, req)
		if err != nil {
			t.Fatal(err)
		}
		return d.Cell()
	}
	if got := cell(start, "b"); got != "proxy→a" {
		t.Fatalf("start: b %s for %s, want proxy→a", got, only)
	}
	for _, tc := range []struct {
		break_, restore Step
	}{
		{Step{Action: ActionPeerCAWrong, Server: "b"}, Step{Action: ActionPeerCARight, Server: "b"}},
		{Step{Action: ActionAdvertiseUnreachable, Server: "a"}, Step{Action: ActionAdvertiseReachable, Server: "a"}},
	} {
		broken, err := Apply(start, tc.break_)
		if err != nil {
			t.Fatal(err)
		}
		if got := cell(broken, "b"); got != "404" {
			t.Errorf("after %s: b %s for %s, want 404", tc.break_, got, only)
		}
		restored, err := Apply(broken, tc.restore)
		if err != nil {
			t.Fatal(err)
		}
		if got := cell(restored, "b"); got != "proxy→a" {
			t.Errorf("after %s: b %s for %s, want proxy→a", tc.restore, got, only)
		}
	}
}

// A start server newer than mvpctl's rules is an assumption the simulation states (so that
// preflight, the gate, does not pass on it).
func TestNewerServerIsAnAssumption(t *testing.T) {
	s := threeServers(t, "1.36")
	sim, err := Run(s, nil)
	if err != nil || len(sim.Assumptions) != 0 {
		t.Fatalf("known versions: %v, assumptions %q", err, sim.Assumptions)
	}
	s.Servers[1].Version = fmt.Sprintf("v1.%d.0", mvp.NewestKnownMinor+2)
	sim, err = Run(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := mvp.Assumptions(s); len(want) != 1 || !reflect.DeepEqual(sim.Assumptions, want) {
		t.Errorf("assumptions = %q, want %q", sim.Assumptions, want)
	}
}

// TestRunKeepsWhatADeadServerWasInferredToServe: a live snapshot of a crashed server records
// nothing of it; the router infers what it served from its peers' peer-aggregated /apis. A
// simulation from there keeps that GVR through the steps, which recompute those views: after
// another server stops, the peers have dropped the dead one and the row says 404 (it does not
// vanish), with the dead server named as the one that served it.
func TestRunKeepsWhatADeadServerWasInferredToServe(t *testing.T) {
	s := threeServers(t, "1.36")
	for _, st := range []Step{{Action: ActionUpgrade, Server: "a", To: "1.37"}, {Action: ActionCrash, Server: "a"}} {
		next, err := Apply(s, st)
		if err != nil {
			t.Fatal(err)
		}
		s = next
	}
	s.Find("a").Resources = nil // what a live snapshot of a dead server records
	sim, err := Run(s, []Step{{Action: ActionStop, Server: "c"}})
	if err != nil {
		t.Fatal(err)
	}
	cell := func(step int) string {
		for _, row := range sim.Steps[step].Table.Rows {
			if row.Name == "new.k8s.io/v1/widgets" {
				for _, c := range row.Cells {
					if c.Server == "b" {
						return string(c.Outcome) + " served by " + strings.Join(row.ServedBy, ",")
					}
				}
			}
		}
		return "no row"
	}
	if got := cell(0); got != "unavailable served by a" {
		t.Errorf("start: b %s, want unavailable served by a (inferred, not recorded)", got)
	}
	if got := cell(1); got != "not-found served by a" {
		t.Errorf("after c stops: b %s, want not-found served by a", got)
	}
}
