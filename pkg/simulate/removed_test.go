package simulate

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// useEmbedded makes the embedded profiles (real apiservers, and the provisional one) those in
// use until the test ends; the other tests use small hand-made ones (fixture_test.go).
func useEmbedded(t *testing.T) {
	t.Helper()
	t.Cleanup(profile.ReplaceEmbedded(nil))
}

var dra = []string{"resource.k8s.io/v1beta1/deviceclasses", "resource.k8s.io/v1beta1/resourceclaims",
	"resource.k8s.io/v1beta1/resourceclaimtemplates", "resource.k8s.io/v1beta1/resourceslices"}

func gvrsOf(rs []snapshot.Resource, gv string) []string {
	var out []string
	for _, r := range rs {
		if r.GroupVersion() == gv {
			out = append(out, r.GVR().String())
		}
	}
	slices.Sort(out)
	return out
}

// TestProvisional138Profile: the embedded 1.38 profile is provisional and serves nothing of
// resource.k8s.io/v1beta1, by default or with api/all=true (k8s.io/api v0.38.0-alpha.2
// resource/v1beta1/zz_generated.prerelease-lifecycle.go:39,75,111,147: removed in 1.38;
// k8s.io/apiserver pkg/server/deleted_kinds.go:150-171: even when enabled), only with the
// one-release escape; the 1.37 profile serves it with api/all=true.
func TestProvisional138Profile(t *testing.T) {
	useEmbedded(t)
	p, err := profile.Lookup("1.38")
	if err != nil {
		t.Fatal(err)
	}
	if p.Provisional == nil || p.Provisional.Base != "v1.37.2" || !strings.HasPrefix(p.Source, "PROVISIONAL") {
		t.Fatalf("the 1.38 profile is not labelled provisional: %+v, source %q", p.Provisional, p.Source)
	}
	if got := gvrsOf(p.Resources, "resource.k8s.io/v1beta1"); len(got) > 0 {
		t.Errorf("1.38 serves %v by default", got)
	}
	if got := gvrsOf(p.Full, "resource.k8s.io/v1beta1"); len(got) > 0 {
		t.Errorf("1.38 serves %v with api/all=true", got)
	}
	if got := gvrsOf(p.FullServeRemoved, "resource.k8s.io/v1beta1"); !slices.Equal(got, dra) {
		t.Errorf("1.38 with %s=true serves %v, want %v", mvp.ServeRemovedAPIsEnv, got, dra)
	}
	if p.GateDefault == nil || !*p.GateDefault {
		t.Errorf("gate default %v, want on (kube_features.go:477)", p.GateDefault)
	}
	base, err := profile.Lookup("1.37")
	if err != nil {
		t.Fatal(err)
	}
	if base.Provisional != nil || !slices.Equal(gvrsOf(base.Full, "resource.k8s.io/v1beta1"), dra) {
		t.Errorf("the 1.37 profile: provisional %v, api-all v1beta1 %v", base.Provisional, gvrsOf(base.Full, "resource.k8s.io/v1beta1"))
	}
}

func outcomeAt(t *testing.T, sim *Simulation, step int, server, gvr string) mvp.Outcome {
	t.Helper()
	for _, row := range sim.Steps[step].Table.Rows {
		if row.GVR.String() != gvr {
			continue
		}
		for _, c := range row.Cells {
			if c.Server == server {
				return c.Outcome
			}
		}
	}
	return ""
}

// The 1.37 → 1.38 rehearsal of a plane with --runtime-config=resource.k8s.io/v1beta1=true:
// while a 1.37 peer still serves v1beta1 an upgraded server proxies to it (with the filter) or
// answers 404 (without); after the last 1.37 server, nobody serves it. Said first: provisional.
func TestUpgradeTo138DropsV1beta1(t *testing.T) {
	useEmbedded(t)
	const claims = "resource.k8s.io/v1beta1/resourceclaims"
	for _, tc := range []struct {
		proxy string
		want  mvp.Outcome
	}{{"configured", mvp.Proxied}, {"default", mvp.NotFound}} {
		t.Run(tc.proxy, func(t *testing.T) {
			servers := []ServerVersion{{Name: "a", Version: "1.37"}, {Name: "b", Version: "1.37"}, {Name: "c", Version: "1.37"}}
			if err := ApplyProxyFlag(servers, tc.proxy); err != nil {
				t.Fatal(err)
			}
			if err := ApplyRuntimeConfigFlag(servers, "resource.k8s.io/v1beta1=true"); err != nil {
				t.Fatal(err)
			}
			start, err := FromProfiles(servers, time.Unix(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			steps, err := UpgradePlan(start, "1.38", nil)
			if err != nil {
				t.Fatal(err)
			}
			sim, err := Run(start, steps)
			if err != nil {
				t.Fatal(err)
			}
			if len(sim.Provisional) != 1 || sim.Provisional[0].Version != "v1.38.0" {
				t.Errorf("provisional: %+v", sim.Provisional)
			}
			if got := gvrsOf(start.Servers[0].Resources, "resource.k8s.io/v1beta1"); !slices.Equal(got, dra) {
				t.Errorf("a 1.37 server with the runtime-config serves %v", got)
			}
			// Step 2 upgraded a; b and c still run 1.37 and serve v1beta1.
			if got := outcomeAt(t, sim, 2, "a", claims); got != tc.want {
				t.Errorf("a upgraded, b and c on 1.37: %s, want %s", got, tc.want)
			}
			if !slices.Contains(sim.Removed, claims) {
				t.Errorf("removed at the end: %v", sim.Removed)
			}
			assumed := strings.Join(sim.Assumptions, "\n")
			if !strings.Contains(assumed, "a, b, c: assumed: "+mvp.ServeRemovedAPIsEnv+" unset") {
				t.Errorf("the escape is assumed unset without saying so:\n%s", assumed)
			}
		})
	}
}

// A static pod manifest's env states the escape: the upgraded server keeps serving v1beta1 in
// 1.38 (STATED, no assumption); set to false, or absent, it does not.
func TestUpgradeTo138StatedEscape(t *testing.T) {
	useEmbedded(t)
	for _, tc := range []struct {
		env   []snapshot.EnvVar
		serve bool
	}{
		{[]snapshot.EnvVar{{Name: mvp.ServeRemovedAPIsEnv, Value: "true"}}, true},
		{[]snapshot.EnvVar{{Name: mvp.ServeRemovedAPIsEnv, Value: "false"}}, false},
		{nil, false},
	} {
		start, err := FromProfiles([]ServerVersion{{Name: "a", Version: "1.37", RuntimeConfig: "resource.k8s.io/v1beta1=true"}}, time.Unix(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		start.Servers[0].Stated = &snapshot.StatedFlags{Source: snapshot.ManifestSource("a.yaml"),
			Flags: []snapshot.Flag{{Name: "runtime-config", Value: "resource.k8s.io/v1beta1=true"}}, Env: tc.env}
		step := Step{Action: ActionUpgrade, Server: "a", To: "1.38", RuntimeConfig: ReadStepRuntimeConfig("resource.k8s.io/v1beta1=true")}
		next, done, err := applyStep(start, step)
		notes := wordNotes(done.notes)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(gvrsOf(next.Servers[0].Resources, "resource.k8s.io/v1beta1")) > 0; got != tc.serve {
			t.Errorf("env %v: serves v1beta1 %t, want %t (notes %q)", tc.env, got, tc.serve, notes)
		}
		for _, n := range notes {
			if strings.Contains(n, mvp.AssumedEvidence+":") {
				t.Errorf("env %v stated by the manifest, but assumed: %s", tc.env, n)
			}
		}
	}
}
