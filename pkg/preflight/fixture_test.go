package preflight

import (
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	fakeprofiles "github.com/mvpctl/mvpctl/test/fake/profiles"
)

// The unit tests of the gate run on small hand-made profiles; tests of real data use the
// embedded ones (useEmbedded).
func init() { profile.ReplaceEmbedded(fakeprofiles.Fixture()) }

// useEmbedded makes the embedded profiles (real apiservers, and the provisional one) those in
// use until the test ends; the other tests use small hand-made ones (fixture_test.go).
func useEmbedded(t *testing.T) {
	t.Helper()
	t.Cleanup(profile.ReplaceEmbedded(nil))
}

var at = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// threeServers is three servers a, b and c of version, the proxy configured on each.
func threeServers(t *testing.T, version string) *snapshot.Snapshot {
	t.Helper()
	s, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: version, Proxy: "configured"}, {Name: "b", Version: version, Proxy: "configured"}, {Name: "c", Version: version, Proxy: "configured"}}, at)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// kubeadmPlane is three servers of version as a live snapshot of a kubeadm install sees them:
// the binary's defaults observed (readyz: the gate per version, no proxy filter), each stating
// flags (nil: none stated).
func kubeadmPlane(t *testing.T, version string, flags ...snapshot.Flag) *snapshot.Snapshot {
	t.Helper()
	s, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: version}, {Name: "b", Version: version}, {Name: "c", Version: version}}, at)
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.Servers {
		srv := &s.Servers[i]
		gate := *srv.PeerProxy.GateEnabled
		srv.DiscoveryFormat = snapshot.DiscoveryNoPeer
		srv.PeerProxy = snapshot.PeerProxy{GateEnabled: snapshot.Ptr(gate), FilterInstalled: snapshot.Ptr(false),
			Evidence: []string{"readyz lists neither poststarthook/mixed-version-proxy-handler nor poststarthook/unknown-version-proxy-filter: no proxy filter"}}
		srv.Stated = &snapshot.StatedFlags{Source: "ConfigMap kube-system/kubeadm-config (kubeadm.k8s.io/v1beta4 ClusterConfiguration, apiServer.extraArgs)", Flags: flags}
	}
	return s
}
