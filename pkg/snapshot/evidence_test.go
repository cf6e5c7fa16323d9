package snapshot

import "testing"

// TestDeriveEvidenceKinds: a line read from a file is of the basis its first word names, else
// observed, and speaks of the gate or the filter when it names them as words ("aggregated"
// does not name the gate).
func TestDeriveEvidenceKinds(t *testing.T) {
	for _, tc := range []struct {
		line string
		want EvidenceKind
	}{
		{"readyz lists poststarthook/peer-endpoint-reconciler-controller: gate UnknownVersionInteroperabilityProxy on", Observed(TopicGate)},
		{"readyz lists neither poststarthook/mixed-version-proxy-handler nor poststarthook/unknown-version-proxy-filter: no proxy filter", Observed(TopicFilter)},
		{"default /apis differs from profile=nopeer /apis: peer-aggregated discovery on", Observed(0)},
		{"TLS server name gateway.example used: the serving certificate does not name 10.0.0.1", Observed(0)},
		{"stated (--proxy=configured): the peer proxy is set up: gate on, --peer-ca-file set", EvidenceKind{EvidenceStated, TopicGate}},
		{"assumed (--proxy=default): kube-apiserver 1.36 defaults: gate on, no --peer-ca-file, so no proxy filter and nothing is proxied", EvidenceKind{EvidenceAssumed, TopicGate | TopicFilter}},
		{"assumed: KUBE_APISERVER_SERVE_REMOVED_APIS_FOR_ONE_RELEASE unset (no static pod manifest states the environment of its kube-apiserver; give it with --static-pod-manifest)", EvidenceKind{EvidenceAssumed, 0}},
		{"simulated: feature gate turned off", EvidenceKind{EvidenceSimulated, TopicGate}},
		{"the server stated nothing", Observed(0)},
	} {
		s := &Snapshot{Servers: []Server{{PeerProxy: PeerProxy{Evidence: []string{tc.line}}}}}
		s.deriveEvidenceKinds()
		if got := s.Servers[0].PeerProxy.KindOf(0); got != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.line, got, tc.want)
		}
	}
}

// TestAddEvidenceKeepsKindsByLine: a line added with its kind is found at its index
// even after lines appended without one, which are observations.
func TestAddEvidenceKeepsKindsByLine(t *testing.T) {
	pp := PeerProxy{Evidence: []string{"one", "two"}}
	pp.AddEvidence(EvidenceKind{Basis: EvidenceStated, Topics: TopicGate}, "stated three")
	pp.Evidence = append(pp.Evidence, "four")
	lines, kinds := pp.CopyEvidence()
	want := []EvidenceKind{Observed(0), Observed(0), {EvidenceStated, TopicGate}, Observed(0)}
	for i, w := range want {
		if got := pp.KindOf(i); got != w {
			t.Errorf("line %d %q: %+v, want %+v", i, pp.Evidence[i], got, w)
		}
	}
	if len(lines) != 4 || len(kinds) != 4 || kinds[2] != want[2] || kinds[3] != want[3] {
		t.Errorf("CopyEvidence: %q %+v (want a kind for every line)", lines, kinds)
	}
	lines[0] = "changed"
	if pp.Evidence[0] != "one" {
		t.Errorf("CopyEvidence shares its lines")
	}
}
