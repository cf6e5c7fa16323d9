package snapshot

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/report"
)

func TestResults(t *testing.T) {
	up := Server{Name: "a", Reachable: true}
	down := Server{Name: "b"}
	estimated := &LBSampling{Leases: 3, LeasesSeen: 2, LeasesRead: true}
	const notListed = "the identity leases in kube-system could not be listed (403 Forbidden): other apiservers, and any that are down, are not known"
	tests := []struct {
		name        string
		snap        Snapshot
		taken, made report.Class
		takenWhy    string
		madeWhy     string
	}{
		{"all read", Snapshot{Servers: []Server{up}}, report.OK, report.OK, "", ""},
		{"one unread", Snapshot{Servers: []Server{up, down}}, report.Partial, report.Partial,
			"1 of 2 apiservers could not be read (recorded with reachable: false)", "b could not be read when the snapshot was taken"},
		{"kubeadm-config unreadable", Snapshot{Servers: []Server{up}, Cluster: Cluster{Installer: &Installer{KubeadmConfig: KubeadmConfigUnreadable, Detail: "bad yaml"}}},
			report.Partial, report.OK, "kube-system/kubeadm-config could not be read (bad yaml); the snapshot is written without it", ""},
		{"identity leases not listed", Snapshot{Servers: []Server{up}, Cluster: Cluster{IdentityLeases: &IdentityLeases{Error: "403 Forbidden"}}},
			report.Partial, report.Partial, notListed, notListed},
		{"identity leases not listed, and a server unread", Snapshot{Servers: []Server{up, down}, Cluster: Cluster{IdentityLeases: &IdentityLeases{Error: "403 Forbidden"}}},
			report.Partial, report.Partial, notListed, notListed},
		{"identity leases listed", Snapshot{Servers: []Server{up}, Cluster: Cluster{IdentityLeases: &IdentityLeases{Listed: true}}},
			report.OK, report.OK, "", ""},
		{"estimated through a balancer", Snapshot{Servers: []Server{up}, Cluster: Cluster{LB: estimated}}, report.Partial, report.Partial,
			estimated.Incomplete(), estimated.Incomplete()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := func(what string, r report.Result, class report.Class, why string) {
				t.Helper()
				if r.Class != class || (r.Reason == nil) != (why == "") || (r.Reason != nil && r.Reason.String() != why) {
					t.Errorf("%s = %v %v, want %v %q", what, r.Class, r.Reason, class, why)
				}
			}
			check("TakenResult", tt.snap.TakenResult(), tt.taken, tt.takenWhy)
			check("Result", tt.snap.Result(), tt.made, tt.madeWhy)
		})
	}
}
