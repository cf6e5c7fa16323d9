// Package planes holds the control planes the unit tests of pkg/replay, pkg/preflight and
// pkg/simulate's external tests start from: three apiservers a, b and c of one version,
// started from the version profiles in use (test/fake/profiles' in those tests).
package planes

import (
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// At is when the planes are observed.
var At = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// Three is servers a, b and c of version, the Mixed Version Proxy configured on each.
func Three(t testing.TB, version string) *snapshot.Snapshot {
	t.Helper()
	return of(t, version, "configured")
}

// Kubeadm is three servers of version as a live snapshot of a kubeadm install sees them: the
// binary's defaults observed (readyz: the gate per version, no proxy filter), each stating
// flags (nil: none stated).
func Kubeadm(t testing.TB, version string, flags ...snapshot.Flag) *snapshot.Snapshot {
	t.Helper()
	s := of(t, version, "")
	for i := range s.Servers {
		srv := &s.Servers[i]
		gate := *srv.PeerProxy.GateEnabled
		srv.DiscoveryFormat = snapshot.DiscoveryNoPeer
		srv.PeerProxy = snapshot.PeerProxy{GateEnabled: snapshot.Ptr(gate), FilterInstalled: snapshot.Ptr(false)}
		srv.PeerProxy.AddEvidence(snapshot.Observed(snapshot.TopicFilter), "readyz lists neither poststarthook/mixed-version-proxy-handler nor poststarthook/unknown-version-proxy-filter: no proxy filter")
		srv.Stated = &snapshot.StatedFlags{Source: "ConfigMap kube-system/kubeadm-config (kubeadm.k8s.io/v1beta4 ClusterConfiguration, apiServer.extraArgs)", Flags: flags}
	}
	return s
}

// of is servers a, b and c of version, set up as proxy says (simulate.ApplyProxyFlag's
// values; "" the binary's defaults).
func of(t testing.TB, version, proxy string) *snapshot.Snapshot {
	t.Helper()
	var servers []simulate.ServerVersion
	for _, name := range []string{"a", "b", "c"} {
		servers = append(servers, simulate.ServerVersion{Name: name, Version: version, Proxy: proxy})
	}
	s, err := simulate.FromProfiles(servers, At)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
