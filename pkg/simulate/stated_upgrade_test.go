package simulate_test

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/test/fake/planes"
)

// TestUpgradeStartsWithStatedFlags: an upgraded server starts with exactly its stated flags on
// the new binary: the gate of the new version's default when no --feature-gates names it
// (1.35 → 1.36 turns it on), no filter without --peer-ca-file, and the stated --runtime-config
// rather than the one inferred from what it serves.
func TestUpgradeStartsWithStatedFlags(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		from, to             string
		flags                []snapshot.Flag
		unstated             bool
		wantGate, wantFilter bool
		wantBatchV1          bool
	}{
		{name: "kubeadm defaults, 1.35 to 1.36: the gate comes on, no filter", from: "1.35", to: "1.36", wantGate: true, wantBatchV1: true},
		{name: "nothing stated, 1.35 to 1.36: the observed gate is kept", from: "1.35", to: "1.36", unstated: true, wantBatchV1: true},
		{name: "gate stated off", from: "1.36", to: "1.37", flags: []snapshot.Flag{{Name: mvp.FlagFeatureGates, Value: mvp.GateName + "=false"}}, wantBatchV1: true},
		{name: "peer CA stated", from: "1.36", to: "1.37", flags: []snapshot.Flag{{Name: mvp.FlagPeerCAFile, Value: "/etc/kubernetes/pki/ca.crt"}}, wantGate: true, wantFilter: true, wantBatchV1: true},
		{name: "runtime-config stated, not what it serves", from: "1.36", to: "1.37", flags: []snapshot.Flag{{Name: mvp.FlagRuntimeConfig, Value: "batch/v1=false"}}, wantGate: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := planes.Kubeadm(t, tc.from, tc.flags...)
			if tc.unstated {
				for i := range s.Servers {
					s.Servers[i].Stated = nil
				}
			}
			step, err := simulate.ParseStep("upgrade:a=" + tc.to)
			if err != nil {
				t.Fatal(err)
			}
			sim, err := simulate.Run(s, []simulate.Step{step})
			if err != nil {
				t.Fatal(err)
			}
			a := sim.Steps[1].Snapshot().Find("a")
			if *a.PeerProxy.GateEnabled != tc.wantGate || *a.PeerProxy.FilterInstalled != tc.wantFilter {
				t.Errorf("upgraded: gate %t filter %t, want %t %t (evidence %q)", *a.PeerProxy.GateEnabled, *a.PeerProxy.FilterInstalled, tc.wantGate, tc.wantFilter, a.PeerProxy.Evidence)
			}
			if got := a.Serves(snapshot.GVR{Group: "batch", Version: "v1", Resource: "jobs"}); got != tc.wantBatchV1 {
				t.Errorf("upgraded serves batch/v1 jobs: %t, want %t (notes %q)", got, tc.wantBatchV1, sim.Steps[1].Notes)
			}
			if tc.unstated != (len(sim.StatedConfigs) == 0) || !tc.unstated && len(sim.Stated) == 0 {
				t.Errorf("stated configs %+v, STATED lines %q", sim.StatedConfigs, sim.Stated)
			}
		})
	}
}
