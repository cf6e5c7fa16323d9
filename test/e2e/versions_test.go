package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestMixedVersions starts every pinned version with default APIs on one etcd (plus a
// 1.37 server with the gate off) and checks, for every listable GVR that some servers
// serve and others do not, that a server lacking it proxies the request (MVP on) or
// answers not-found (gate off). It proves each pinned binary starts with the harness's
// flags and records the real skew between the versions. Skipped with -short.
func TestMixedVersions(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the mixed-version control plane")
	}
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-135", Version: harness.V1_35},
		harness.ServerSpec{Name: "kas-136", Version: harness.V1_36},
		harness.ServerSpec{Name: "kas-137", Version: harness.V1_37},
		harness.ServerSpec{Name: "kas-137-off", Version: harness.V1_37, GateOff: true},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	local := map[string]map[harness.GVR]bool{}
	listable := map[harness.GVR]bool{}
	for _, s := range cp.Servers() {
		r, err := s.Get(ctx, "/version")
		if err != nil {
			t.Fatal(err)
		}
		var v struct{ GitVersion string }
		if err := json.Unmarshal(r.Body, &v); err != nil || v.GitVersion != s.Version {
			t.Errorf("%s /version = %s, want %s", s.Name, r.Body, s.Version)
		}
		d, err := s.Discovery(ctx, "/apis", true)
		if err != nil {
			t.Fatal(err)
		}
		local[s.Name] = harness.GVRs(d)
		for _, g := range d.Items {
			for _, ver := range g.Versions {
				for _, res := range ver.Resources {
					for _, verb := range res.Verbs {
						if verb == "list" {
							listable[harness.GVR{Group: g.Name, Version: ver.Version, Resource: res.Resource}] = true
						}
					}
				}
			}
		}
	}

	// Which servers serve each GVR that not everyone serves.
	var skew []harness.GVR
	for g := range listable {
		n := 0
		for _, s := range cp.Servers() {
			if local[s.Name][g] {
				n++
			}
		}
		if n < len(cp.Servers()) {
			skew = append(skew, g)
		}
	}
	sort.Slice(skew, func(i, j int) bool { return skew[i].String() < skew[j].String() })

	var report strings.Builder
	o := &observer{t: t}
	for _, g := range skew {
		var by []string
		for _, s := range cp.Servers() {
			if local[s.Name][g] {
				by = append(by, s.Name)
			}
		}
		fmt.Fprintf(&report, "%-60s served by %s\n", g, strings.Join(by, ","))
		for _, s := range cp.Servers() {
			if local[s.Name][g] {
				continue
			}
			obs := o.route(ctx, s, "", "", fmt.Sprintf("/apis/%s/%s/%s?limit=1", g.Group, g.Version, g.Resource))
			want := mvp.Proxied
			if !s.MVP() {
				want = mvp.NotFound
			} else if onlyGateOff(cp, local, g) {
				want = mvp.NotFound // a gate-off server is nobody's peer
			}
			fmt.Fprintf(&report, "    on %-12s -> %s (%d / forced local %d)\n", s.Name, obs.Outcome, obs.Normal.StatusCode, obs.Local.StatusCode)
			if obs.Outcome != want {
				t.Errorf("%s on %s: observed %s (%s), want %s", g, s.Name, obs.Outcome, obs.Why, want)
			}
		}
	}
	t.Logf("GVR skew between %s, %s, %s:\n%s", harness.V1_35, harness.V1_36, harness.V1_37, report.String())
	if len(skew) == 0 {
		t.Error("no GVR differs between the pinned versions; the mixed-version check proved nothing")
	}
}

// onlyGateOff reports whether every server serving g has the gate off.
func onlyGateOff(cp *harness.ControlPlane, local map[string]map[harness.GVR]bool, g harness.GVR) bool {
	for _, s := range cp.Servers() {
		if local[s.Name][g] && s.GateOn() {
			return false
		}
	}
	return true
}
