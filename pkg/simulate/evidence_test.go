package simulate_test

import (
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/test/fake/planes"
)

// Evidence lines as a live snapshot of a 1.36 server with the gate on and no proxy filter
// holds them.
const (
	gateOnLine     = "readyz lists poststarthook/peer-endpoint-reconciler-controller: gate UnknownVersionInteroperabilityProxy on"
	noFilterLine   = "readyz lists neither poststarthook/mixed-version-proxy-handler nor poststarthook/unknown-version-proxy-filter: no proxy filter"
	aggregatedLine = "default /apis differs from profile=nopeer /apis: peer-aggregated discovery on"
	endpointLine   = "server answered: its peer endpoint key is being renewed"
)

// reread is s written to a file and read back.
func reread(t *testing.T, s *snapshot.Snapshot) *snapshot.Snapshot {
	t.Helper()
	b, err := s.Marshal(true)
	if err != nil {
		t.Fatal(err)
	}
	out, err := snapshot.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestStatedGateDisagreementCitesGateEvidenceRead: the gate stated off on a server a file shows
// with the gate on cites the evidence about the gate, and not a line that merely contains its
// letters (peer-aggregated).
func TestStatedGateDisagreementCitesGateEvidenceRead(t *testing.T) {
	s := planes.Kubeadm(t, "1.36", snapshot.Flag{Name: mvp.FlagFeatureGates, Value: mvp.GateName + "=false"})
	a := &s.Servers[0]
	a.PeerProxy.Evidence = []string{gateOnLine, noFilterLine, aggregatedLine, endpointLine}
	sc, ok := simulate.CompareStated(reread(t, s).Find("a"))
	want := "stated gate " + mvp.GateName + " off, but the server shows it on (" + gateOnLine + ")"
	if !ok || len(sc.Disagreements) == 0 || sc.Disagreements[0] != want {
		t.Errorf("disagreements %q, want first %q", sc.Disagreements, want)
	}
}

// TestStatedDisagreementCitesEvidenceByKind: in memory, the evidence a disagreement cites is
// chosen by the kind each line was added with, whatever its words.
func TestStatedDisagreementCitesEvidenceByKind(t *testing.T) {
	s := planes.Kubeadm(t, "1.36", snapshot.Flag{Name: mvp.FlagPeerCAFile, Value: "/etc/kubernetes/pki/ca.crt"})
	a := &s.Servers[0]
	a.PeerProxy = snapshot.PeerProxy{GateEnabled: snapshot.Ptr(true), FilterInstalled: snapshot.Ptr(false)}
	a.PeerProxy.AddEvidence(snapshot.Observed(snapshot.TopicGate), "the gate line")
	a.PeerProxy.AddEvidence(snapshot.Observed(snapshot.TopicFilter), "the first line on the hook")
	a.PeerProxy.AddEvidence(snapshot.Observed(0), "a line that says filter and gate but is about neither")
	a.PeerProxy.AddEvidence(snapshot.Observed(snapshot.TopicFilter|snapshot.TopicGate), "the second line on the hook")
	sc, _ := simulate.CompareStated(a)
	want := "stated proxy filter on, but the server shows it off (the first line on the hook; the second line on the hook)"
	if len(sc.Disagreements) == 0 || sc.Disagreements[0] != want {
		t.Errorf("disagreements %q, want first %q", sc.Disagreements, want)
	}
}

// TestEvidenceKindsSurviveAFile: every kind a producer gives a line (the proxy setups, a
// removal's assumption, a simulated step, an upgrade with stated flags) is the kind the line
// has when the snapshot is written and read back.
func TestEvidenceKindsSurviveAFile(t *testing.T) {
	t.Cleanup(profile.ReplaceEmbedded(nil)) // the embedded profiles: 1.38 removes resource.k8s.io/v1beta1
	start, err := simulate.FromProfiles([]simulate.ServerVersion{
		{Name: "a", Version: "1.36"}, {Name: "b", Version: "1.36", Proxy: "configured"}, {Name: "c", Version: "1.36", Proxy: "off"},
		{Name: "d", Version: "1.38", RuntimeConfig: "resource.k8s.io/v1beta1=true"},
	}, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	kubeadm := planes.Kubeadm(t, "1.36", snapshot.Flag{Name: mvp.FlagPeerCAFile, Value: "/etc/kubernetes/pki/ca.crt"})
	var snaps []*snapshot.Snapshot
	for _, plan := range []struct {
		start *snapshot.Snapshot
		steps []string
	}{
		{start, []string{"gate-off:a", "drop-peer-ca:b", "peer-ca-wrong:c"}},
		{kubeadm, []string{"upgrade:a=1.37"}},
	} {
		var steps []simulate.Step
		for _, st := range plan.steps {
			step, err := simulate.ParseStep(st)
			if err != nil {
				t.Fatal(err)
			}
			steps = append(steps, step)
		}
		sim, err := simulate.Run(plan.start, steps)
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, plan.start, sim.Steps[len(sim.Steps)-1].Snapshot())
	}
	seen := map[snapshot.EvidenceBasis]bool{}
	for _, s := range snaps {
		back := reread(t, s)
		for i := range s.Servers {
			pp, got := &s.Servers[i].PeerProxy, &back.Servers[i].PeerProxy
			for j, line := range pp.Evidence {
				seen[pp.KindOf(j).Basis] = true
				if pp.KindOf(j) != got.KindOf(j) {
					t.Errorf("%s %q: made %+v, read back %+v", s.Servers[i].Name, line, pp.KindOf(j), got.KindOf(j))
				}
			}
		}
	}
	for _, b := range []snapshot.EvidenceBasis{snapshot.EvidenceStated, snapshot.EvidenceAssumed, snapshot.EvidenceSimulated} {
		if !seen[b] {
			t.Errorf("no line of basis %s made", b)
		}
	}
}
