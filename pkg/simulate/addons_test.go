package simulate

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// With the cluster's CRD list not read (sources unknown), a group no kube-apiserver release has
// is an add-on's: an upgrade keeps serving it and calls it no --runtime-config entry.
func TestUpgradeKeepsUnknownAddOnGroup(t *testing.T) {
	s := threeServers(t, "1.36")
	srv := s.Find("a")
	for i := range srv.Resources {
		srv.Resources[i].Source = "" // the lists were not read
	}
	widgets := snapshot.Resource{Group: "crd.mvpctl.io", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true, Verbs: []string{"get", "list"}}
	srv.Resources = append(srv.Resources, widgets)
	sim, err := Run(s, []Step{{Action: ActionUpgrade, Server: "a", To: "1.37"}})
	if err != nil {
		t.Fatal(err)
	}
	if l := sim.Steps[len(sim.Steps)-1].ConfigLosses; len(l) != 0 {
		t.Errorf("config losses %+v: the add-on's group taken for a --runtime-config entry", l)
	}
	for _, n := range sim.Steps[len(sim.Steps)-1].Notes {
		t.Logf("note: %s", n)
	}
	next, err := Apply(s, Step{Action: ActionUpgrade, Server: "a", To: "1.37"})
	if err != nil {
		t.Fatal(err)
	}
	if d := decide(t, next, "a", "/apis/crd.mvpctl.io/v1/widgets"); d.Outcome != "local" {
		t.Errorf("after the upgrade, a for widgets: %s (%s), want local", d.Outcome, d.Reason)
	}
}
