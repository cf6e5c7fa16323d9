package preflight

import (
	"slices"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/test/fake/planes"
)

// TestStatedFindings: MVP060 when the installer's statement disagrees with what a server does;
// MVP061 for each upgraded server that will start with the gate on and no --peer-ca-file;
// neither check listed when nothing is stated.
func TestStatedFindings(t *testing.T) {
	ca := snapshot.Flag{Name: mvp.FlagPeerCAFile, Value: "/etc/kubernetes/pki/ca.crt"}
	for _, tc := range []struct {
		name     string
		plane    func() *snapshot.Snapshot
		want     map[string]int
		unlisted bool
	}{
		{name: "kubeadm as installed: no --peer-ca-file, every upgraded server", plane: func() *snapshot.Snapshot { return planes.Kubeadm(t, "1.36") }, want: map[string]int{"MVP060": 0, "MVP061": 3}},
		{name: "the peer CA stated, but not in effect (restart pending)", plane: func() *snapshot.Snapshot { return planes.Kubeadm(t, "1.36", ca) },
			want: map[string]int{"MVP060": 3, "MVP061": 0}},
		{name: "stated runtime-config that is not what a server serves", plane: func() *snapshot.Snapshot {
			s := planes.Kubeadm(t, "1.36")
			s.Servers[1].Stated.Flags = []snapshot.Flag{ca, {Name: mvp.FlagRuntimeConfig, Value: "batch/v1=false"}}
			s.Servers[1].PeerProxy.FilterInstalled = snapshot.Ptr(true)
			return s
		}, want: map[string]int{"MVP060": 1, "MVP061": 2}},
		{name: "nothing stated", plane: func() *snapshot.Snapshot {
			s := planes.Kubeadm(t, "1.36")
			for i := range s.Servers {
				s.Servers[i].Stated = nil
			}
			return s
		}, want: map[string]int{"MVP060": 0, "MVP061": 0}, unlisted: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.plane()
			steps, err := simulate.UpgradePlan(s, "1.37", nil)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Run(t.Context(), Options{Start: s, Steps: steps, Target: "1.37"})
			if err != nil {
				t.Fatal(err)
			}
			ids := checkIDs(rep)
			for id, n := range tc.want {
				if ids[id] != n {
					t.Errorf("%s: %d findings, want %d: %+v", id, ids[id], n, rep.Findings)
				}
			}
			listed := slices.ContainsFunc(rep.Checks, func(c Check) bool { return c.ID == CheckUpgradeNoPeerCA.ID })
			if listed == tc.unlisted {
				t.Errorf("MVP061 listed %t with nothing stated %t", listed, tc.unlisted)
			}
			for _, f := range rep.Findings {
				if f.Check == CheckUpgradeNoPeerCA.ID && (!strings.Contains(f.Message, "no --peer-ca-file") || !strings.Contains(f.Message, "404") || !strings.Contains(f.Message, "kubeadm-config")) {
					t.Errorf("MVP061 does not say what will happen and from what: %s", f.Message)
				}
				if f.Check == CheckStatedDisagrees.ID && (!strings.Contains(f.Message, "but") || len(f.Evidence) < 2) {
					t.Errorf("MVP060 does not say what disagrees: %+v", f)
				}
			}
		})
	}
}

// TestStatedConfigurationFindings: with readyz unread, a configuration the installer states is
// checked as an observed one would be (MVP002 gate off, MVP003 no filter), its source in the
// evidence; without a statement nothing is claimed.
func TestStatedConfigurationFindings(t *testing.T) {
	for _, tc := range []struct {
		version, name string
		unstated      bool
		want          map[string]int
	}{
		{name: "1.36 as kubeadm starts it: no --peer-ca-file", version: "1.36", want: map[string]int{"MVP002": 0, "MVP003": 3}},
		{name: "1.35 as kubeadm starts it: the gate off by default", version: "1.35", want: map[string]int{"MVP002": 3, "MVP003": 0}},
		{name: "1.36, nothing stated: assumed, not claimed", version: "1.36", unstated: true, want: map[string]int{"MVP002": 0, "MVP003": 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := planes.Kubeadm(t, tc.version)
			for i := range s.Servers {
				s.Servers[i].PeerProxy = snapshot.PeerProxy{Evidence: []string{"readyz not read (403 Forbidden): proxy filter unknown"}}
				if tc.unstated {
					s.Servers[i].Stated = nil
				}
			}
			rep, err := Run(t.Context(), Options{Start: s})
			if err != nil {
				t.Fatal(err)
			}
			ids := checkIDs(rep)
			for id, n := range tc.want {
				if ids[id] != n {
					t.Errorf("%s: %d findings, want %d", id, ids[id], n)
				}
			}
			for _, f := range rep.Findings {
				if (f.Check == "MVP002" || f.Check == "MVP003") && !slices.ContainsFunc(f.Evidence, func(e string) bool { return strings.HasPrefix(e, "stated: ConfigMap kube-system/kubeadm-config") }) {
					t.Errorf("%s without its stated source: %q", f.Check, f.Evidence)
				}
			}
		})
	}
}
