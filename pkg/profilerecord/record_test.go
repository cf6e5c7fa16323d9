package profilerecord

import (
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/discover"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func res(gv, resource, source string) snapshot.Resource {
	group, version, ok := strings.Cut(gv, "/")
	if !ok {
		group, version = "", gv
	}
	return snapshot.Resource{Group: group, Version: version, Resource: resource, Kind: "K", Namespaced: true, Verbs: []string{"get"}, Source: source}
}

var on, off = true, false

// observation is a default v1.38.0 server: GA APIs only, the gate on, default feature gates.
func observation() Observation {
	return Observation{
		Server: snapshot.Server{Name: "kas", Endpoint: "https://10.0.0.1:6443", Version: "v1.38.0", Reachable: true, DiscoveryFormat: "v2;profile=nopeer",
			Resources: []snapshot.Resource{res("v1", "pods", "builtin"), res("apps/v1", "deployments", "builtin")},
			PeerProxy: snapshot.PeerProxy{GateEnabled: &on}},
		TakenAt: time.Date(2026, 11, 26, 15, 4, 5, 0, time.UTC),
		Gates: []discover.FeatureGate{{Name: "AlphaThing", Stage: "ALPHA"}, {Name: "BetaThing", Stage: "BETA"},
			{Name: "BetaOff", Stage: "BETA", Enabled: false}, {Name: "GAThing", Stage: "", Enabled: true}},
	}
}

func TestBuild(t *testing.T) {
	full := observation()
	full.Resources = append(full.Resources, res("new.k8s.io/v1alpha1", "ideas", "builtin"))
	tests := []struct {
		name        string
		def         func(*Observation)
		all         *Observation
		notCaptured []string
		notDefault  []string
		notes       []string
	}{
		{"defaults and the full set", nil, &full, nil, nil, nil},
		{"no full set", nil, nil, []string{"the full set (what the binary serves with --runtime-config=api/all=true)"}, nil, nil},
		{"an alpha API served", func(o *Observation) {
			o.Resources = append(o.Resources, res("new.k8s.io/v1alpha1", "ideas", "builtin"), res("old.k8s.io/v2beta3", "relics", "builtin"))
		}, &full, nil, []string{"it serves alpha or beta APIs, which a default kube-apiserver does not (--runtime-config?): new.k8s.io/v1alpha1, old.k8s.io/v2beta3"}, nil},
		{"feature gates off their default", func(o *Observation) {
			o.Gates = []discover.FeatureGate{{Name: "AlphaThing", Stage: "ALPHA", Enabled: true}, {Name: "GAThing", Stage: "", Enabled: false}, {Name: "BetaOff", Stage: "BETA"}}
		}, &full, nil, []string{"feature gates not at their defaults (--feature-gates?): AlphaThing=true (ALPHA), GAThing=false (GA)"}, nil},
		{"the peer-proxy gate off on 1.38", func(o *Observation) { o.PeerProxy.GateEnabled = &off }, &full, nil,
			[]string{"UnknownVersionInteroperabilityProxy is off, but on by default in 1.36+ (--feature-gates?)"}, nil},
		{"the gate not established", func(o *Observation) {
			o.PeerProxy = snapshot.PeerProxy{Evidence: []string{"readyz: not read: GET /readyz?verbose: HTTP 403"}}
		}, &full, []string{"the default of UnknownVersionInteroperabilityProxy: readyz: not read: GET /readyz?verbose: HTTP 403"}, nil, nil},
		{"no /metrics", func(o *Observation) {
			o.Gates, o.GatesErr = nil, "GET /metrics: HTTP 403: not allowed to read /metrics"
		}, &full,
			[]string{"whether feature gates are set (--feature-gates): GET /metrics: HTTP 403: not allowed to read /metrics"}, nil, nil},
		{"behind a load balancer", func(o *Observation) { o.Others = 2 }, &full,
			[]string{"whether https://10.0.0.1:6443 is one apiserver: the control plane has 2 more (identity leases)"}, nil, nil},
		{"the cluster's resources left out", func(o *Observation) {
			o.Resources = append(o.Resources, res("example.com/v1", "widgets", "crd"), res("metrics.k8s.io/v1beta1", "pods", "aggregated"))
		}, &full, nil, nil, []string{"default server: left out 1 resources of source crd (the cluster's, not the binary's)",
			"default server: left out 1 resources of source aggregated (the cluster's, not the binary's)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def := observation()
			if tt.def != nil {
				tt.def(&def)
			}
			rep, err := Build(def, tt.all, "test source")
			if err != nil {
				t.Fatal(err)
			}
			check := func(what string, got, want []string) {
				if len(got) != len(want) {
					t.Errorf("%s = %q, want %q", what, got, want)
					return
				}
				for i := range want {
					if !strings.HasPrefix(got[i], want[i]) {
						t.Errorf("%s[%d] = %q, want %q...", what, i, got[i], want[i])
					}
				}
			}
			check("NotCaptured", rep.NotCaptured, tt.notCaptured)
			check("NotDefault", rep.NotDefault, tt.notDefault)
			check("Notes", rep.Notes, tt.notes)
			// The profile: what the binary serves, nothing of this run, loadable as a profile.
			data, err := rep.Profile.Marshal(true)
			if err != nil {
				t.Fatal(err)
			}
			p, err := profile.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			if p.Version.String() != "v1.38.0" || p.TakenAt != "2026-11-26" || (p.Full != nil) != (tt.all != nil) {
				t.Errorf("profile %s taken %s, full set %t", p.Version, p.TakenAt, p.Full != nil)
			}
			wantSource := "test source"
			if len(tt.notDefault) > 0 {
				wantSource += "; NOT THE DEFAULTS: " + strings.Join(rep.NotDefault, "; ")
			}
			if p.Source != wantSource {
				t.Errorf("source %q, want %q", p.Source, wantSource)
			}
			srv := rep.Profile.Servers[0]
			if srv.Name != profile.ServerDefault || srv.Endpoint != "" || srv.ID != "" || len(srv.Resources) != 2+strings.Count(tt.name, "alpha API")*2 {
				t.Errorf("default server: %+v", srv)
			}
		})
	}
	if _, err := Build(observation(), &Observation{Server: snapshot.Server{Version: "v1.37.2"}}, "x"); err == nil ||
		err.Error() != "the api/all=true server is v1.37.2, the default one v1.38.0: a profile is one version" {
		t.Errorf("two versions: %v", err)
	}
}
