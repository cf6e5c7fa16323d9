package discover

import (
	"context"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apiserverinternalv1alpha1 "k8s.io/api/apiserverinternal/v1alpha1"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mvpctl/mvpctl/pkg/snapshot"

	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
)

// recorder collects the callbacks' lines; Discover serialises the calls.
type recorder struct {
	mu       sync.Mutex
	progress []string
	warnings []string
}

func (r *recorder) opts(o Options) Options {
	o.Progress = func(s string) { r.mu.Lock(); r.progress = append(r.progress, s); r.mu.Unlock() }
	o.Warn = func(s string) { r.mu.Lock(); r.warnings = append(r.warnings, s); r.mu.Unlock() }
	return o
}

func (r *recorder) all() string {
	return strings.Join(r.progress, "\n") + "\n" + strings.Join(r.warnings, "\n")
}

// closedAddr returns a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func resourceNames(rs []snapshot.Resource) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.GVR().String())
	}
	slices.Sort(out)
	return out
}

func findResource(rs []snapshot.Resource, gvr string) *snapshot.Resource {
	for i := range rs {
		if rs[i].GVR().String() == gvr {
			return &rs[i]
		}
	}
	return nil
}

// TestDiscoverFromLeases is the default path: a mixed control plane found through its
// identity leases, with one crashed server and one whose gate is off.
func TestDiscoverFromLeases(t *testing.T) {
	p := dt.NewPKI(t)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	cluster := &dt.Cluster{CRDsJSON: dt.CRDsJSONFixture, APIServicesJSON: dt.APIServicesJSONFixture}

	crd := dt.Group("stable.example.com", dt.Ver("v1", dt.Resource("crontabs", "CronTab", true, "status")))
	metrics := dt.Group("metrics.k8s.io", dt.StaleVer("v1beta1", dt.Resource("pods", "PodMetrics", true)))
	batch := dt.Group("batch", dt.Ver("v1", dt.Resource("cronjobs", "CronJob", true, "status"), dt.Resource("jobs", "Job", true, "status")))

	a := (&dt.Server{Cluster: cluster, GitVersion: "v1.37.1", Emulation: "1.37", Mode: dt.ModeNoPeer,
		Core: dt.CoreGroup(), Groups: append(dt.BuiltinGroups(true), crd, metrics), Hooks: dt.Hooks136}).Start(t, p)
	b := (&dt.Server{Cluster: cluster, GitVersion: "v1.36.3", Emulation: "1.36", Mode: dt.ModeNoPeer,
		Core: dt.CoreGroup(), Groups: append(dt.BuiltinGroups(false), crd, metrics), PeerOnly: []apidiscoveryv2.APIGroupDiscovery{batch}, Hooks: dt.Hooks136}).Start(t, p)
	dead := closedAddr(t)
	cluster.Leases = []coordinationv1.Lease{
		dt.IdentityLease("apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa", "cp-a", a.Addr(), now.Add(-3*time.Second)),
		dt.IdentityLease("apiserver-bbbbbbbbbbbbbbbbbbbbbbbbbb", "cp-b", b.Addr(), now.Add(-4*time.Second)),
		dt.IdentityLease("apiserver-cccccccccccccccccccccccccc", "cp-c", dead, now.Add(-2*time.Second)),
		dt.IdentityLease("apiserver-dddddddddddddddddddddddddd", "cp-d", "", now.Add(-40*time.Minute)),
	}

	var rec recorder
	snap, err := discoverRT(t, context.Background(), rec.opts(Options{Config: dt.ClientConfig(p, a.URL(), "admin-token"), Now: func() time.Time { return now }}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := snap.ServerNames(), []string{"cp-a", "cp-b", "cp-c", "cp-d"}; !slices.Equal(got, want) {
		t.Fatalf("servers %v, want %v", got, want)
	}
	if !snap.Partial() {
		t.Error("snapshot with a dead server is not partial")
	}
	if !snap.TakenAt.Equal(now) || snap.TakenAt.Location() != time.UTC {
		t.Errorf("takenAt %v", snap.TakenAt)
	}
	if want := `server ` + a.URL(); snap.Source != want {
		t.Errorf("source %q, want %q", snap.Source, want)
	}

	sa, sb, sc, sd := snap.Find("cp-a"), snap.Find("cp-b"), snap.Find("cp-c"), snap.Find("cp-d")
	if sa.ID != "apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa" || sa.FoundBy != FoundByLease || sa.Endpoint != "https://"+a.Addr() || sa.PeerAdvertiseAddress != a.Addr() {
		t.Errorf("cp-a identity: %+v", sa)
	}
	if sa.Version != "v1.37.1" || sa.EmulatedVersion != "1.37" || !sa.Reachable || sa.DiscoveryFormat != snapshot.DiscoveryNoPeer {
		t.Errorf("cp-a: version %q emulated %q reachable %v format %q", sa.Version, sa.EmulatedVersion, sa.Reachable, sa.DiscoveryFormat)
	}
	if sa.IdentityLease == nil || sa.IdentityLease.RenewTime == nil || !sa.IdentityLease.RenewTime.Equal(now.Add(-3*time.Second)) || !strings.HasPrefix(sa.IdentityLease.HolderIdentity, sa.ID+"_") {
		t.Errorf("cp-a lease %+v", sa.IdentityLease)
	}

	// Own discovery: B lacks batch; the stale aggregated metrics group is left out.
	if !sa.Serves(snapshot.GVR{Group: "batch", Version: "v1", Resource: "jobs"}) || sb.Serves(snapshot.GVR{Group: "batch", Version: "v1", Resource: "jobs"}) {
		t.Error("batch/v1/jobs: want served by cp-a only")
	}
	if findResource(sa.Resources, "metrics.k8s.io/v1beta1/pods") != nil {
		t.Error("a Stale group version was recorded")
	}
	pods := findResource(sa.Resources, "v1/pods")
	if pods == nil || pods.Kind != "Pod" || !pods.Namespaced || pods.Source != snapshot.SourceBuiltin || !slices.Equal(pods.Subresources, []string{"binding", "eviction", "exec", "log", "status"}) || !slices.Contains(pods.Verbs, "watch") {
		t.Errorf("v1/pods: %+v", pods)
	}
	if ns := findResource(sa.Resources, "v1/namespaces"); ns == nil || ns.Namespaced {
		t.Errorf("v1/namespaces: %+v", ns)
	}
	if ct := findResource(sa.Resources, "stable.example.com/v1/crontabs"); ct == nil || ct.Source != snapshot.SourceCRD {
		t.Errorf("crontabs: %+v", ct)
	}

	// Peer-aggregated /apis: B lists batch through its peer.
	if sb.PeerProxy.PeerAggregatedDiscovery == nil || !*sb.PeerProxy.PeerAggregatedDiscovery {
		t.Errorf("cp-b peerAggregatedDiscovery %v", sb.PeerProxy.PeerAggregatedDiscovery)
	}
	if r := findResource(sb.PeerAggregated, "batch/v1/jobs"); r == nil || r.Source != snapshot.SourceBuiltin {
		t.Errorf("cp-b peer-aggregated batch/v1/jobs: %+v", r)
	}
	if findResource(sb.PeerAggregated, "v1/pods") != nil {
		t.Error("peer-aggregated view holds the core group, which /apis never lists")
	}
	// A has no peer-only groups, yet 1.37 with the filter installed aggregates: recorded.
	if sa.PeerProxy.PeerAggregatedDiscovery == nil || !*sa.PeerProxy.PeerAggregatedDiscovery || len(sa.PeerAggregated) == 0 {
		t.Errorf("cp-a peer-aggregated: %v, %d resources", sa.PeerProxy.PeerAggregatedDiscovery, len(sa.PeerAggregated))
	}
	for _, s := range []*snapshot.Server{sa, sb} {
		pp := s.PeerProxy
		if pp.FilterInstalled == nil || !*pp.FilterInstalled || pp.GateEnabled == nil || !*pp.GateEnabled || pp.EndpointResolvable == nil || !*pp.EndpointResolvable {
			t.Errorf("%s peerProxy %+v", s.Name, pp)
		}
	}

	// The crashed server: recorded with its lease, unreachable, endpoint surely still alive
	// (renewed 2 s ago: the key lives at least 5 s after the last renewal).
	if sc.Reachable || !strings.Contains(sc.Error, "connection refused") || sc.ID == "" || sc.Version != "" {
		t.Errorf("cp-c: %+v", sc)
	}
	if sc.PeerProxy.EndpointResolvable == nil || !*sc.PeerProxy.EndpointResolvable {
		t.Errorf("cp-c renewed 2s ago: endpointResolvable %v", sc.PeerProxy.EndpointResolvable)
	}
	// The gate-off server: no address, so not contacted, and not resolvable by peers.
	if sd.Reachable || !strings.Contains(sd.Error, "not contacted") || sd.PeerProxy.GateEnabled == nil || *sd.PeerProxy.GateEnabled {
		t.Errorf("cp-d: %+v", sd)
	}
	if sd.PeerProxy.EndpointResolvable == nil || *sd.PeerProxy.EndpointResolvable {
		t.Errorf("cp-d endpointResolvable %v", sd.PeerProxy.EndpointResolvable)
	}

	if want := []string{"metrics.k8s.io/v1beta1"}; !slices.Equal(snap.Cluster.AggregatedGroupVersions, want) {
		t.Errorf("aggregated GVs %v, want %v", snap.Cluster.AggregatedGroupVersions, want)
	}
	// Every APIService is recorded; the aggregated one with its service, its condition and
	// what each reachable server's own discovery says of it (Stale on both, pods last listed).
	if got := len(snap.Cluster.APIServices); got != 3 {
		t.Fatalf("%d APIServices recorded, want 3: %+v", got, snap.Cluster.APIServices)
	}
	if local := snap.Cluster.APIServices[0]; local.Name != "v1.apps" || local.Service != nil || !local.IsAvailable() {
		t.Errorf("local APIService %+v", local)
	}
	ms := snap.Cluster.AggregatedAPIService("metrics.k8s.io/v1beta1")
	if ms == nil || ms.Name != "v1beta1.metrics.k8s.io" || ms.Service.String() != "kube-system/metrics-server:443" ||
		ms.Available == nil || ms.Available.Status != "False" || ms.Available.Reason != "MissingEndpoints" || ms.Available.LastTransitionTime == nil ||
		!strings.Contains(ms.Available.Message, `have no addresses with port name "https"`) ||
		!slices.Equal(ms.Resources, []string{"pods"}) || !slices.Equal(ms.Stale, []string{"cp-a", "cp-b"}) || len(ms.Unlisted) != 0 {
		t.Errorf("metrics APIService %+v (available %+v)", ms, ms.Available)
	}
	if !strings.Contains(strings.Join(rec.progress, "\n"), "APIService v1beta1.metrics.k8s.io is not available (Available=False MissingEndpoints") {
		t.Errorf("no progress line about the unavailable APIService: %q", rec.progress)
	}
	if want := []string{"stable.example.com/v1", "stable.example.com/v1beta1"}; !slices.Equal(snap.Cluster.CustomResourceGroupVersions, want) {
		t.Errorf("CRD GVs %v, want %v (every spec.versions[].name, served or not)", snap.Cluster.CustomResourceGroupVersions, want)
	}
	if snap.Cluster.StorageVersions != nil {
		t.Error("StorageVersions read for a 1.36/1.37 control plane")
	}

	if !slices.Contains(rec.progress, "found 3 apiservers via identity leases") || !slices.Contains(rec.progress, "fetched 3/3") {
		t.Errorf("progress %q", rec.progress)
	}
	if !strings.Contains(rec.all(), "group version metrics.k8s.io/v1beta1 is Stale") {
		t.Errorf("no warning about the stale group version: %q", rec.warnings)
	}
	// The first discovery request asks for the non-peer document first.
	if acc := a.Requests(); !slices.Contains(acc, "/apis "+acceptDiscovery) {
		t.Errorf("requests to cp-a: %q", acc)
	}
	if _, err := snap.Marshal(false); err != nil {
		t.Fatal(err)
	}
}

// TestDiscoveryFormats checks the fallback chain against servers of each generation: the
// recorded format and that each yields the same resources.
func TestDiscoveryFormats(t *testing.T) {
	p := dt.NewPKI(t)
	cases := []struct {
		name, gitVersion, mode, want string
	}{
		{"1.36 honours profile=nopeer", "v1.36.3", dt.ModeNoPeer, snapshot.DiscoveryNoPeer},
		{"1.34 ignores the profile", "v1.34.4", dt.ModeIgnoreProfile, snapshot.DiscoveryV2},
		{"1.29 serves only v2beta1", "v1.29.6", dt.ModeV2Beta1, snapshot.DiscoveryV2Beta1},
		{"legacy unaggregated discovery only", "v1.28.3", dt.ModeLegacy, snapshot.DiscoveryLegacy},
	}
	var first []string
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := (&dt.Server{Cluster: &dt.Cluster{}, GitVersion: tc.gitVersion, Mode: tc.mode, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true)}).Start(t, p)
			snap, err := discoverRT(t, context.Background(), Options{Config: dt.ClientConfig(p, f.URL(), "")})
			if err != nil {
				t.Fatal(err)
			}
			s := snap.Servers[0]
			if !s.Reachable || s.DiscoveryFormat != tc.want {
				t.Fatalf("reachable %v format %q (error %q), want %q", s.Reachable, s.DiscoveryFormat, s.Error, tc.want)
			}
			names := resourceNames(s.Resources)
			if first == nil {
				first = names
			} else if !slices.Equal(names, first) {
				t.Errorf("resources %v, want %v", names, first)
			}
			if pods := findResource(s.Resources, "v1/pods"); pods == nil || len(pods.Subresources) != 5 {
				t.Errorf("v1/pods: %+v", pods)
			}
			if s.PeerAggregated != nil {
				t.Errorf("peer-aggregated recorded for %s", tc.gitVersion)
			}
		})
	}
}

// TestLegacyDiscoverySkipsUnservedGroupVersions: unaggregated /apis lists every APIService,
// so a group version the server does not serve answers 404 and is left out (docs/behaviour.md §3.3).
func TestLegacyDiscoverySkipsUnservedGroupVersions(t *testing.T) {
	p := dt.NewPKI(t)
	f := &dt.Server{Cluster: &dt.Cluster{}, GitVersion: "v1.28.3", Mode: dt.ModeLegacy, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true)}
	f.Override = map[string]http.HandlerFunc{"/apis/batch/v1": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("404 page not found\n"))
	}}
	f.Start(t, p)
	snap, err := discoverRT(t, context.Background(), Options{Config: dt.ClientConfig(p, f.URL(), "")})
	if err != nil {
		t.Fatal(err)
	}
	s := snap.Servers[0]
	if !s.Reachable || s.Serves(snapshot.GVR{Group: "batch", Version: "v1", Resource: "jobs"}) || !s.Serves(snapshot.GVR{Group: "apps", Version: "v1", Resource: "deployments"}) {
		t.Errorf("reachable %v, resources %v", s.Reachable, resourceNames(s.Resources))
	}
}

// TestNotAcceptableFallsBackToLegacy: a proxy that answers 406 to the aggregated types.
func TestNotAcceptableFallsBackToLegacy(t *testing.T) {
	p := dt.NewPKI(t)
	f := &dt.Server{Cluster: &dt.Cluster{}, GitVersion: "v1.36.3", Mode: dt.ModeNoPeer, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true)}
	strict := func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != "application/json" {
			dt.WriteStatus(w, http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable, "only application/json")
			return
		}
		f.ServeLegacyRoot(w, r)
	}
	f.Override = map[string]http.HandlerFunc{"/api": strict, "/apis": strict}
	f.Start(t, p)
	snap, err := discoverRT(t, context.Background(), Options{Config: dt.ClientConfig(p, f.URL(), "")})
	if err != nil {
		t.Fatal(err)
	}
	if s := snap.Servers[0]; !s.Reachable || s.DiscoveryFormat != snapshot.DiscoveryLegacy || len(s.Resources) == 0 {
		t.Errorf("%+v", s)
	}
}

// TestStorageVersions: a 1.31 control plane routes on StorageVersion objects.
func TestStorageVersions(t *testing.T) {
	p := dt.NewPKI(t)
	svGroup := dt.Group("internal.apiserver.k8s.io", dt.Ver("v1alpha1", dt.Resource("storageversions", "StorageVersion", false, "status")))
	sv := func(name, id string, served ...string) apiserverinternalv1alpha1.StorageVersion {
		enc := served[0]
		return apiserverinternalv1alpha1.StorageVersion{ObjectMeta: metav1.ObjectMeta{Name: name},
			Status: apiserverinternalv1alpha1.StorageVersionStatus{StorageVersions: []apiserverinternalv1alpha1.ServerStorageVersion{
				{APIServerID: id, EncodingVersion: enc, DecodableVersions: served, ServedVersions: served}}, CommonEncodingVersion: &enc}}
	}
	cluster := &dt.Cluster{StorageVersions: &apiserverinternalv1alpha1.StorageVersionList{
		TypeMeta: metav1.TypeMeta{Kind: "StorageVersionList", APIVersion: "internal.apiserver.k8s.io/v1alpha1"},
		Items: []apiserverinternalv1alpha1.StorageVersion{
			sv("core.pods", "apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa", "v1"),
			sv("batch.jobs", "apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa", "batch/v1"),
			sv("rbac.authorization.k8s.io.roles", "apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa", "rbac.authorization.k8s.io/v1"),
		}}}
	f := (&dt.Server{Cluster: cluster, GitVersion: "v1.31.14", Mode: dt.ModeIgnoreProfile, Core: dt.CoreGroup(),
		Groups: append(dt.BuiltinGroups(true), svGroup), Hooks: []string{"poststarthook/unknown-version-proxy-filter", "poststarthook/peer-endpoint-reconciler-controller"}}).Start(t, p)
	var rec recorder
	snap, err := discoverRT(t, context.Background(), rec.opts(Options{Config: dt.ClientConfig(p, f.URL(), "")}))
	if err != nil {
		t.Fatal(err)
	}
	got := snap.Cluster.StorageVersions
	if len(got) != 3 || got[0].Group != "" || got[0].Resource != "pods" || got[1].Group != "batch" || got[2].Group != "rbac.authorization.k8s.io" || got[2].Resource != "roles" {
		t.Fatalf("storage versions %+v", got)
	}
	if got[1].Servers[0].APIServerID != "apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa" || !slices.Equal(got[1].Servers[0].ServedVersions, []string{"batch/v1"}) {
		t.Errorf("batch.jobs %+v", got[1])
	}
	s := snap.Servers[0]
	if s.PeerProxy.FilterInstalled == nil || !*s.PeerProxy.FilterInstalled {
		t.Errorf("SV-era filter hook not recognised: %+v", s.PeerProxy)
	}

	// The same server without the API: nothing recorded, and a warning says why.
	f2 := (&dt.Server{Cluster: &dt.Cluster{}, GitVersion: "v1.30.14", Mode: dt.ModeIgnoreProfile, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true)}).Start(t, p)
	rec = recorder{}
	snap, err = discoverRT(t, context.Background(), rec.opts(Options{Config: dt.ClientConfig(p, f2.URL(), "")}))
	if err != nil {
		t.Fatal(err)
	}
	if snap.Cluster.StorageVersions != nil || !strings.Contains(rec.all(), "none serves internal.apiserver.k8s.io/v1alpha1") {
		t.Errorf("storage versions %v, warnings %q", snap.Cluster.StorageVersions, rec.warnings)
	}
}

// TestConcurrencyBound: no more than Concurrency servers are read at once.
func TestConcurrencyBound(t *testing.T) {
	p := dt.NewPKI(t)
	var mu sync.Mutex
	inFlight, peak := 0, 0
	slowVersion := func(f *dt.Server) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			inFlight++
			peak = max(peak, inFlight)
			mu.Unlock()
			time.Sleep(50 * time.Millisecond)
			mu.Lock()
			inFlight--
			mu.Unlock()
			dt.WriteJSON(w, "application/json", f.VersionInfo())
		}
	}
	cluster := &dt.Cluster{}
	var servers []*dt.Server
	for i := range 5 {
		f := &dt.Server{Cluster: cluster, GitVersion: "v1.36.3", Mode: dt.ModeNoPeer, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true)}
		f.Override = map[string]http.HandlerFunc{"/version": slowVersion(f)}
		f.Start(t, p)
		servers = append(servers, f)
		cluster.Leases = append(cluster.Leases, dt.IdentityLease("apiserver-"+strings.Repeat(string(rune('a'+i)), 26), "cp-"+string(rune('a'+i)), f.Addr(), time.Now()))
	}
	snap, err := discoverRT(t, context.Background(), Options{Config: dt.ClientConfig(p, servers[0].URL(), ""), Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Partial() || len(snap.Servers) != 5 {
		t.Fatalf("servers %v partial %v", snap.ServerNames(), snap.Partial())
	}
	if peak > 2 {
		t.Errorf("%d servers read at once, want at most 2", peak)
	}
}
