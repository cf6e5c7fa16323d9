package mvp

import (
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestRulesByVersion is the table of versions × rules of docs/behaviour.md §1: one row per
// minor (and the edges around them), one column per rule.
func TestRulesByVersion(t *testing.T) {
	type row struct {
		era              Era
		gateDefault      bool
		aggregates       bool // peer-aggregated /apis and profile=nopeer
		excludes         bool // CRD/APIService group/versions never proxied
		storageVersions  bool // routes on StorageVersion objects
		anyUnresolved503 bool
		learnsAggregated bool // asks peers without profile=nopeer
		stopDeletesLease bool
		gvrMetricLabels  bool // rerouted{group,version,resource}, peer_* error counters
		retries          int
		coreKey          string
		newerThanKnown   bool
	}
	for v, want := range map[string]row{
		"v1.27.9":  {era: EraNone, coreKey: `"core"`},
		"v1.28.0":  {era: EraSV, storageVersions: true, anyUnresolved503: true, coreKey: `"core"`},
		"v1.31.14": {era: EraSV, storageVersions: true, anyUnresolved503: true, coreKey: `"core"`},
		"v1.32.2":  {era: EraSV2, storageVersions: true, coreKey: `"core"`},
		"v1.33.13": {era: EraDisc, learnsAggregated: true, retries: 5, coreKey: `"core"`},
		"v1.34.4":  {era: EraDisc, learnsAggregated: true, retries: 5, coreKey: `"core"`},
		"v1.35.4":  {era: EraDiscAgg, aggregates: true, excludes: true, stopDeletesLease: true, retries: 20, coreKey: `""`},
		"v1.36.3":  {era: EraDiscAgg2, gateDefault: true, aggregates: true, excludes: true, stopDeletesLease: true, gvrMetricLabels: true, retries: 20, coreKey: `""`},
		"v1.37.1":  {era: EraDiscAgg2, gateDefault: true, aggregates: true, excludes: true, stopDeletesLease: true, gvrMetricLabels: true, retries: 20, coreKey: `""`},
		"v1.40.0":  {era: EraDiscAgg2, gateDefault: true, aggregates: true, excludes: true, stopDeletesLease: true, gvrMetricLabels: true, retries: 20, coreKey: `""`, newerThanKnown: true},
		"v2.0.0":   {era: EraNone, coreKey: `"core"`},
	} {
		pv, err := snapshot.ParseVersion(v)
		if err != nil {
			t.Fatal(err)
		}
		e := EraOf(pv)
		got := row{era: e, gateDefault: GateDefault(pv), aggregates: CanAggregateDiscovery(pv) && HonoursNoPeerProfile(pv),
			excludes: e.ExcludesCRDsAndAPIServices(), storageVersions: e.RoutesOnStorageVersions(),
			anyUnresolved503: e.AnyUnresolvedPeerIs503(), learnsAggregated: e.LearnsPeersAggregatedView(),
			stopDeletesLease: StopDeletesIdentityLease(pv), gvrMetricLabels: ReroutedMetricHasGVR(pv) && HasPeerProxyMetrics(pv),
			retries: PeerDiscoveryRetries(pv), coreKey: e.CoreKey(), newerThanKnown: Newer(pv)}
		if got != want {
			t.Errorf("%s:\n got %+v\nwant %+v", v, got, want)
		}
	}
}

func ptr(b bool) *bool { return &b }

// TestConfiguration: what is recorded wins; what is not is the binary's default configuration
// (gate per version, no --peer-ca-file), and is reported as assumed.
func TestConfiguration(t *testing.T) {
	for _, tc := range []struct {
		name                                     string
		version                                  string
		pp                                       snapshot.PeerProxy
		reachable                                bool
		gate, gateAssumed, filter, filterAssumed bool
		aggregates, aggAssumed, resolves         bool
	}{
		{name: "1.36 nothing recorded", version: "v1.36.3", reachable: true,
			gate: true, gateAssumed: true, filter: false, filterAssumed: true, aggregates: false, aggAssumed: true, resolves: true},
		{name: "1.35 nothing recorded", version: "v1.35.4", reachable: true,
			gate: false, gateAssumed: true, filter: false, filterAssumed: true, aggregates: false, aggAssumed: true},
		{name: "1.34 nothing recorded: no aggregation whatever the filter", version: "v1.34.4", reachable: true,
			gateAssumed: true, filterAssumed: true},
		{name: "1.27: no proxy at all, nothing assumed", version: "v1.27.9", reachable: true, gateAssumed: true},
		{name: "gate recorded off: the filter is known absent", version: "v1.36.3", reachable: true,
			pp: snapshot.PeerProxy{GateEnabled: ptr(false)}},
		{name: "filter recorded", version: "v1.35.4", reachable: true,
			pp:   snapshot.PeerProxy{GateEnabled: ptr(true), FilterInstalled: ptr(true)},
			gate: true, filter: true, aggregates: true, resolves: true},
		{name: "aggregation recorded wins", version: "v1.36.3", reachable: true,
			pp:   snapshot.PeerProxy{GateEnabled: ptr(true), FilterInstalled: ptr(true), PeerAggregatedDiscovery: ptr(false)},
			gate: true, filter: true, resolves: true},
		{name: "crashed, endpoint lease expired", version: "v1.36.3",
			pp:   snapshot.PeerProxy{GateEnabled: ptr(true), FilterInstalled: ptr(true), EndpointResolvable: ptr(false)},
			gate: true, filter: true, aggregates: true},
		{name: "crashed, endpoint lease alive", version: "v1.36.3",
			pp:   snapshot.PeerProxy{GateEnabled: ptr(true), FilterInstalled: ptr(true), EndpointResolvable: ptr(true)},
			gate: true, filter: true, aggregates: true, resolves: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &snapshot.Server{Version: tc.version, PeerProxy: tc.pp, Reachable: tc.reachable}
			gate, ga := GateOn(srv)
			filter, fa := FilterInstalled(srv)
			agg, aa := AggregatesDiscovery(srv)
			if gate != tc.gate || ga != tc.gateAssumed || filter != tc.filter || fa != tc.filterAssumed ||
				agg != tc.aggregates || aa != tc.aggAssumed || EndpointResolves(srv) != tc.resolves {
				t.Errorf("gate %v/%v filter %v/%v aggregates %v/%v resolves %v; want %v/%v %v/%v %v/%v %v",
					gate, ga, filter, fa, agg, aa, EndpointResolves(srv),
					tc.gate, tc.gateAssumed, tc.filter, tc.filterAssumed, tc.aggregates, tc.aggAssumed, tc.resolves)
			}
		})
	}
}

func TestPeerOf(t *testing.T) {
	lease := func(holder string) *snapshot.Lease { return &snapshot.Lease{Name: "x", HolderIdentity: holder} }
	self := &snapshot.Server{ID: "apiserver-a", Version: "v1.36.3", Reachable: true, IdentityLease: lease("a_1")}
	for _, tc := range []struct {
		name string
		peer snapshot.Server
		want PeerExclusion
	}{
		{"running peer", snapshot.Server{ID: "apiserver-b", Version: "v1.36.3", Reachable: true, IdentityLease: lease("b_1")}, PeerIncluded},
		{"crashed peer keeps its lease", snapshot.Server{ID: "apiserver-b", Version: "v1.36.3", IdentityLease: lease("b_1")}, PeerIncluded},
		{"reachable, lease not read", snapshot.Server{ID: "apiserver-b", Version: "v1.36.3", Reachable: true}, PeerIncluded},
		{"no ID", snapshot.Server{Version: "v1.36.3", Reachable: true}, PeerHasNoID},
		{"same hostname", snapshot.Server{ID: "apiserver-a", Version: "v1.36.3", Reachable: true}, PeerIsSelf},
		{"stopped 1.35+", snapshot.Server{ID: "apiserver-b", Version: "v1.36.3"}, PeerHasNoLease},
		{"lease without holder", snapshot.Server{ID: "apiserver-b", Version: "v1.36.3", IdentityLease: lease("")}, PeerLeaseHasNoOwner},
		{"1.35 gate default off", snapshot.Server{ID: "apiserver-b", Version: "v1.35.4", Reachable: true}, PeerGateOff},
		{"1.35 gate on", snapshot.Server{ID: "apiserver-b", Version: "v1.35.4", Reachable: true, PeerProxy: snapshot.PeerProxy{GateEnabled: ptr(true)}}, PeerIncluded},
	} {
		if got := PeerOf(self, &tc.peer); got != tc.want {
			t.Errorf("%s: PeerOf = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestExcludedGroupVersions(t *testing.T) {
	snap := &snapshot.Snapshot{
		Cluster: snapshot.Cluster{CustomResourceGroupVersions: []string{"example.com/v1"}, AggregatedGroupVersions: []string{"metrics.k8s.io/v1beta1"}},
		Servers: []snapshot.Server{{Resources: []snapshot.Resource{
			{Group: "batch", Version: "v1", Resource: "jobs", Source: snapshot.SourceBuiltin},
			{Group: "other.io", Version: "v2", Resource: "things", Source: snapshot.SourceCRD},
		}}},
	}
	got := ExcludedGroupVersions(snap)
	want := map[string]GroupVersionExclusion{"example.com/v1": ExcludedCRD, "metrics.k8s.io/v1beta1": ExcludedAPIService, "other.io/v2": ExcludedCRD}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for gv, why := range want {
		if got[gv] != why {
			t.Errorf("%s: %q, want %q", gv, got[gv], why)
		}
	}
}

func TestUnlearnedCauses(t *testing.T) {
	peer := &snapshot.Server{Name: "b", Version: "v1.36.3", PeerAdvertiseAddress: "10.0.0.2:6443"}
	unreachable := &snapshot.Server{Name: "b", Version: "v1.36.3", PeerAdvertiseAddress: "10.0.0.2:1",
		PeerProxy: snapshot.PeerProxy{AdvertiseAddressReachable: ptr(false)}}
	for _, tc := range []struct {
		name string
		s    snapshot.PeerProxy
		ver  string
		peer *snapshot.Server
		want string // cause names, most likely first
	}{
		{"no evidence", snapshot.PeerProxy{}, "v1.36.3", peer, "tls-trust advertise-address retries-exhausted"},
		{"simulated wrong CA", snapshot.PeerProxy{PeerCATrustsPeers: ptr(false)}, "v1.36.3", peer, "tls-trust"},
		{"advertise address refused mvpctl", snapshot.PeerProxy{}, "v1.36.3", unreachable, "advertise-address tls-trust retries-exhausted"},
		{"fetch errors", snapshot.PeerProxy{PeerDiscoverySyncErrors: map[string]float64{SyncErrorFetch: 4}}, "v1.36.3", peer, "tls-trust advertise-address retries-exhausted"},
		{"host:port errors", snapshot.PeerProxy{PeerDiscoverySyncErrors: map[string]float64{SyncErrorHostPort: 1}}, "v1.36.3", peer, "endpoint-resolution retries-exhausted"},
		{"lease list errors", snapshot.PeerProxy{PeerDiscoverySyncErrors: map[string]float64{SyncErrorLeaseList: 1}}, "v1.36.3", peer, "lease-list"},
		{"counters read, all zero", snapshot.PeerProxy{PeerDiscoverySyncErrors: map[string]float64{}}, "v1.36.3", peer, "retries-exhausted tls-trust advertise-address"},
		{"1.34 start-up race", snapshot.PeerProxy{}, "v1.34.4", peer, "start-up-race tls-trust advertise-address"},
	} {
		s := &snapshot.Server{Name: "a", Version: tc.ver, PeerProxy: tc.s}
		var names []string
		for _, c := range UnlearnedCauses(s, []*snapshot.Server{tc.peer}) {
			names = append(names, c.Name)
			if c.Text == "" || c.Confirm == "" {
				t.Errorf("%s: cause %s without text or confirmation", tc.name, c.Name)
			}
		}
		if got := strings.Join(names, " "); got != tc.want {
			t.Errorf("%s: causes %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestLearns(t *testing.T) {
	lease := &snapshot.Lease{Name: "x", HolderIdentity: "x_1"}
	s := &snapshot.Server{ID: "apiserver-a", Version: "v1.36.3", Reachable: true, IdentityLease: lease}
	p := &snapshot.Server{ID: "apiserver-b", Version: "v1.36.3", Reachable: true, IdentityLease: lease}
	if got := Learns(s, p); got != PeerIncluded {
		t.Errorf("plain peer: %q", got)
	}
	s.PeerProxy.PeerCATrustsPeers = ptr(false)
	if got := Learns(s, p); got != PeerNotTrusted {
		t.Errorf("untrusting peer CA: %q", got)
	}
	s.PeerProxy.PeerCATrustsPeers = nil
	p.PeerProxy.AdvertiseAddressReachable = ptr(false)
	if got := Learns(s, p); got != PeerAdvertiseUnreachable {
		t.Errorf("unreachable advertise address: %q", got)
	}
	p.ID = ""
	if got := Learns(s, p); got != PeerHasNoID {
		t.Errorf("no ID wins over fetch problems: %q", got)
	}
}

func TestSkewPolicy(t *testing.T) {
	v := func(s string) snapshot.Version {
		pv, err := snapshot.ParseVersion(s)
		if err != nil {
			t.Fatal(err)
		}
		return pv
	}
	for _, tc := range []struct {
		from, to string
		want     UpgradeStep
	}{
		{"1.36.3", "1.37.1", UpgradeAllowed},
		{"1.36.3", "1.36.4", UpgradeAllowed},
		{"1.37.1", "1.37.1", UpgradeNone},
		{"1.34.4", "1.36.3", UpgradeSkipsMinor},
		{"1.34.4", "1.37.1", UpgradeSkipsMinor},
		{"1.36.3", "1.35.4", UpgradeDowngrade},
		{"1.36.3", "1.36.1", UpgradeDowngrade},
		{"1.36.3", "2.0.0", UpgradeSkipsMinor},
	} {
		if got := ClassifyUpgrade(v(tc.from), v(tc.to)); got != tc.want {
			t.Errorf("%s → %s: %d, want %d", tc.from, tc.to, got, tc.want)
		}
	}
	if err := ControlPlaneSkew(map[string]snapshot.Version{"a": v("1.36.3"), "b": v("1.37.1")}); err != nil {
		t.Errorf("one minor apart is within the policy: %v", err)
	}
	err := ControlPlaneSkew(map[string]snapshot.Version{"a": v("1.35.4"), "b": v("1.37.1"), "c": v("1.36.3")})
	if err == nil || !strings.Contains(err.Error(), "b (v1.37.1) and a (v1.35.4)") {
		t.Errorf("two minors apart: %v", err)
	}
}

// TestPeerExclusionWords: every reason has its words, and "it is a peer" has none.
func TestPeerExclusionWords(t *testing.T) {
	if PeerIncluded.String() != "" || PeerIncluded.Excluded() {
		t.Errorf("PeerIncluded = %q, excluded %v", PeerIncluded.String(), PeerIncluded.Excluded())
	}
	seen := map[string]PeerExclusion{}
	for e := PeerIsSelf; e <= PeerAdvertiseUnreachable; e++ {
		w := e.String()
		if w == "" || strings.HasPrefix(w, "PeerExclusion(") || !e.Excluded() {
			t.Errorf("PeerExclusion %d has no words: %q", e, w)
		}
		if o, dup := seen[w]; dup {
			t.Errorf("PeerExclusion %d and %d have the same words %q", o, e, w)
		}
		seen[w] = e
	}
}

// TestGroupVersionExclusionWords: each reason has its words; "not excluded" has none.
func TestGroupVersionExclusionWords(t *testing.T) {
	for e, want := range map[GroupVersionExclusion]string{NotExcluded: "", ExcludedCRD: "a CustomResourceDefinition", ExcludedAPIService: "an aggregated APIService"} {
		if got := e.String(); got != want {
			t.Errorf("GroupVersionExclusion(%d) = %q, want %q", e, got, want)
		}
	}
}
