package basis

import (
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestOfSnapshot pins what a snapshot's reads come to for each result made from it: taking
// it, what is made from it (routes, explain), a simulation, the gate.
func TestOfSnapshot(t *testing.T) {
	up := snapshot.Server{Name: "a", Reachable: true}
	down := snapshot.Server{Name: "b"}
	estimated := &snapshot.LBSampling{Leases: 3, LeasesSeen: 2, LeasesRead: true}
	const notListed = "the identity leases in kube-system could not be listed (403 Forbidden): other apiservers, and any that are down, are not known"
	leases := snapshot.Cluster{IdentityLeases: &snapshot.IdentityLeases{Error: "403 Forbidden"}}
	prom := &snapshot.PrometheusEvidence{URL: "http://p", Error: "timeout"}
	tests := []struct {
		name              string
		snap              snapshot.Snapshot
		taken, made, sim  report.Class
		takenWhy, madeWhy string
		simWhy            string
		gate              []string
	}{
		{name: "all read", snap: snapshot.Snapshot{Servers: []snapshot.Server{up}}},
		{"one unread", snapshot.Snapshot{Servers: []snapshot.Server{up, down}}, report.Partial, report.Partial, report.Warnings,
			"1 of 2 apiservers could not be read (recorded with reachable: false)", "b could not be read when the snapshot was taken",
			"b could not be read when the snapshot was taken", []string{"b could not be read"}},
		{"kubeadm-config unreadable", snapshot.Snapshot{Servers: []snapshot.Server{up}, Cluster: snapshot.Cluster{Installer: &snapshot.Installer{KubeadmConfig: snapshot.KubeadmConfigUnreadable, Detail: "bad yaml"}}},
			report.Partial, report.OK, report.OK, "kube-system/kubeadm-config could not be read (bad yaml); the snapshot is written without it", "", "", nil},
		{"identity leases not listed", snapshot.Snapshot{Servers: []snapshot.Server{up}, Cluster: leases},
			report.Partial, report.Partial, report.Warnings, notListed, notListed, notListed, []string{notListed}},
		{"identity leases not listed, and a server unread", snapshot.Snapshot{Servers: []snapshot.Server{up, down}, Cluster: leases},
			report.Partial, report.Partial, report.Warnings, notListed, notListed,
			notListed + "; b could not be read when the snapshot was taken", []string{notListed, "b could not be read"}},
		{name: "identity leases listed", snap: snapshot.Snapshot{Servers: []snapshot.Server{up}, Cluster: snapshot.Cluster{IdentityLeases: &snapshot.IdentityLeases{Listed: true}}}},
		{"estimated through a balancer", snapshot.Snapshot{Servers: []snapshot.Server{up}, Cluster: snapshot.Cluster{LB: estimated}}, report.Partial, report.Partial, report.Warnings,
			estimated.Incomplete(), estimated.Incomplete(), estimated.Incomplete(), []string{estimated.Incomplete()}},
		{name: "a Prometheus not read: the gate's only", snap: snapshot.Snapshot{Servers: []snapshot.Server{up}, Prometheus: prom},
			gate: []string{"Prometheus http://p could not be read: timeout"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := func(what string, r report.Result, class report.Class, why string) {
				t.Helper()
				if r.Class != class || (r.Reason == nil) != (why == "") || (r.Reason != nil && r.Reason.String() != why) {
					t.Errorf("%s = %v %v, want %v %q", what, r.Class, r.Reason, class, why)
				}
			}
			r := OfSnapshot(&tt.snap)
			check("TakenResult", r.TakenResult(), tt.taken, tt.takenWhy)
			check("MadeResult", r.MadeResult(), tt.made, tt.madeWhy)
			check("SimulationResult", r.SimulationResult(), tt.sim, tt.simWhy)
			if got := r.GateReads(); strings.Join(got, "\n") != strings.Join(tt.gate, "\n") {
				t.Errorf("GateReads = %q, want %q", got, tt.gate)
			}
		})
	}
}

// TestRestsOn pins what the profiles, assumptions and stated facts a result rests on come to:
// a simulation has warnings for a provisional profile or an assumption, not for what the
// installer states; the gate's caveats say what was not read first.
func TestRestsOn(t *testing.T) {
	prov := []Provisional{{Version: "v1.39.0"}, {Version: "v1.40.0"}}
	tests := []struct {
		name    string
		r       RestsOn
		sim     report.Class
		simWhy  string
		caveats []string
	}{
		{name: "observed", r: RestsOn{}},
		{name: "stated only: the cluster's word", r: RestsOn{Stated: []string{"a: --runtime-config=x"}}},
		{"provisional", RestsOn{Provisional: prov}, report.Warnings,
			"it rests on the provisional profile v1.39.0, v1.40.0 (the PROVISIONAL lines)",
			[]string{"rests on the provisional profile v1.39.0, v1.40.0 (the PROVISIONAL lines)"}},
		{"assumed", RestsOn{Assumptions: []string{"x", "y"}}, report.Warnings,
			"it rests on 2 assumption(s) (the ASSUMED lines)", []string{"rests on 2 assumption(s) (the ASSUMED lines)"}},
		{"all of them, and reads of the gate's own", RestsOn{Provisional: prov[:1], Assumptions: []string{"x"}, Reads: Reads{Unread: []string{"b"}}}.WithReads(ReadLine("the rest of the Helm release r")),
			report.Warnings,
			"it rests on the provisional profile v1.39.0 (the PROVISIONAL lines); it rests on 1 assumption(s) (the ASSUMED lines); b could not be read when the snapshot was taken",
			[]string{"not read: b could not be read; the rest of the Helm release r", "rests on the provisional profile v1.39.0 (the PROVISIONAL lines)", "rests on 1 assumption(s) (the ASSUMED lines)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.r.SimulationResult()
			if res.Class != tt.sim || (res.Reason == nil) != (tt.simWhy == "") || (res.Reason != nil && res.Reason.String() != tt.simWhy) {
				t.Errorf("SimulationResult = %v %v, want %v %q", res.Class, res.Reason, tt.sim, tt.simWhy)
			}
			if got := tt.r.GateCaveats(); strings.Join(got, "\n") != strings.Join(tt.caveats, "\n") {
				t.Errorf("GateCaveats = %q, want %q", got, tt.caveats)
			}
		})
	}
}

// TestWithReadsKeepsTheOriginal: a gate's further reads do not reach the simulation it
// carries the value from.
func TestWithReadsKeepsTheOriginal(t *testing.T) {
	sim := RestsOn{}.WithReads(ReadLine("a"))
	gate := sim.WithReads(ReadLine("b"))
	if len(sim.Reads.Also) != 1 || len(gate.Reads.Also) != 2 {
		t.Errorf("simulation %q, gate %q", sim.Reads.Also, gate.Reads.Also)
	}
}
