package discover

import (
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
)

// roundRobin is a TCP balancer on loopback: each connection to the next backend in turn.
func roundRobin(t *testing.T, backends ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var open []net.Conn
	// Closing every connection ends the test at once: a client's idle keep-alive connection
	// would otherwise live for its idle timeout.
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range open {
			c.Close()
		}
	})
	go func() {
		for i := 0; ; i++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			open = append(open, c)
			mu.Unlock()
			go func(backend string) {
				defer c.Close()
				s, err := net.Dial("tcp", backend)
				if err != nil {
					return
				}
				defer s.Close()
				done := make(chan struct{}, 2)
				go func() { io.Copy(s, c); done <- struct{}{} }()
				go func() { io.Copy(c, s); done <- struct{}{} }()
				<-done
			}(backends[i%len(backends)])
		}
	}()
	return "https://" + ln.Addr().String()
}

type lbFixture struct {
	p       *dt.PKI
	now     time.Time
	cluster *dt.Cluster
	servers []*dt.Server
}

// newLBFixture starts a v1.36.3, a second identical v1.36.3 and a v1.37.1 (three fake
// apiservers) with identity leases at their addresses; change(i, server) adjusts server i
// before it starts.
func newLBFixture(t *testing.T, change func(int, *dt.Server)) *lbFixture {
	f := &lbFixture{p: dt.NewPKI(t), now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), cluster: &dt.Cluster{CRDsJSON: dt.CRDsJSONFixture, APIServicesJSON: dt.APIServicesJSONFixture}}
	for i, v := range []string{"v1.36.3", "v1.36.3", "v1.37.1"} {
		s := &dt.Server{Cluster: f.cluster, GitVersion: v, Mode: dt.ModeNoPeer, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(v == "v1.37.1"), Hooks: dt.Hooks136}
		if change != nil {
			change(i, s)
		}
		f.servers = append(f.servers, s.Start(t, f.p))
	}
	for i, s := range f.servers {
		f.cluster.Leases = append(f.cluster.Leases, dt.IdentityLease(fmt.Sprintf("apiserver-%026d", i), fmt.Sprintf("cp-%c", 'a'+i), s.Addr(), f.now.Add(-2*time.Second)))
	}
	return f
}

func (f *lbFixture) backends() []string {
	var out []string
	for _, s := range f.servers {
		out = append(out, s.Addr())
	}
	return out
}

func (f *lbFixture) discover(t *testing.T, base string, o Options) (*snapshot.Snapshot, *recorder, error) {
	var rec recorder
	o.Config = dt.ClientConfig(f.p, base, "admin-token")
	o.Now = func() time.Time { return f.now }
	snap, err := discoverRT(t, context.Background(), rec.opts(o))
	return snap, &rec, err
}

// TestViaLB: three apiservers behind a round-robin balancer, nine samples: two classes, every
// lease named by a sample, each class expanded into its apiservers with their identities.
func TestViaLB(t *testing.T) {
	f := newLBFixture(t, nil)
	lb := roundRobin(t, f.backends()...)
	snap, rec, err := f.discover(t, lb, Options{ViaLB: true, LBSamples: 9})
	if err != nil {
		t.Fatal(err)
	}
	info := snap.Cluster.LB
	if info == nil || info.Address != lb || info.Samples != 9 || info.Answered != 9 || info.Classes != 2 || info.Leases != 3 || info.LeasesSeen != 3 ||
		info.Confidence == nil || *info.Confidence != 1 || len(info.Doubts) != 0 || !info.Complete() {
		t.Fatalf("cluster.lb = %+v\n%s", info, rec.all())
	}
	type member struct {
		name, class, id, version string
		samples, est             int
		identified               bool
	}
	want := []member{
		{"class-1-1", "class-1", "apiserver-00000000000000000000000000", "v1.36.3", 6, 2, true},
		{"class-1-2", "class-1", "apiserver-00000000000000000000000001", "v1.36.3", 6, 2, true},
		{"class-2", "class-2", "apiserver-00000000000000000000000002", "v1.37.1", 3, 1, true},
	}
	if len(snap.Servers) != len(want) {
		t.Fatalf("servers %v, want %d", snap.ServerNames(), len(want))
	}
	for i, w := range want {
		s := snap.Servers[i]
		got := member{s.Name, s.LB.Class, s.ID, s.Version, s.LB.Samples, s.LB.EstimatedServers, s.LB.Identified}
		if got != w {
			t.Errorf("server %d = %+v, want %+v", i, got, w)
		}
		if s.FoundBy != FoundByLB || s.Endpoint != lb || s.PeerAdvertiseAddress != f.servers[i].Addr() || !s.Reachable || s.PeerProxy.FilterInstalled == nil || !*s.PeerProxy.FilterInstalled {
			t.Errorf("server %s: foundBy %s endpoint %s address %s reachable %v filter %v", s.Name, s.FoundBy, s.Endpoint, s.PeerAdvertiseAddress, s.Reachable, s.PeerProxy.FilterInstalled)
		}
		if s.PeerProxy.AdvertiseAddressReachable != nil {
			t.Errorf("server %s: advertise address dialled through a balancer", s.Name)
		}
	}
	if math.Abs(snap.Servers[0].LB.Share-6.0/9) > 1e-12 {
		t.Errorf("class-1 share %v, want 6/9", snap.Servers[0].LB.Share)
	}
}

// TestViaLBFailedSamples: one backend fails its discovery mid-sample (after /version): its
// samples are counted as failed, reported, and make the sampling doubtful; its class is
// unknown, so only two of three leases are seen.
func TestViaLBFailedSamples(t *testing.T) {
	f := newLBFixture(t, func(i int, s *dt.Server) {
		if i == 2 {
			s.Override = map[string]http.HandlerFunc{"/apis": func(w http.ResponseWriter, r *http.Request) {
				dt.WriteStatus(w, http.StatusServiceUnavailable, "ServiceUnavailable", "etcd is sad")
			}}
		}
	})
	lb := roundRobin(t, f.backends()...)
	snap, rec, err := f.discover(t, lb, Options{ViaLB: true, LBSamples: 6})
	if err != nil {
		t.Fatal(err)
	}
	info := snap.Cluster.LB
	failed := 0
	for _, fl := range info.Failed {
		failed += fl.Count
	}
	if info.Samples != 6 || info.Answered+failed != 6 || failed == 0 || info.Classes != 1 || info.LeasesSeen != 2 || info.Complete() {
		t.Fatalf("cluster.lb = %+v", info)
	}
	if !strings.Contains(strings.Join(info.Doubts, "\n"), fmt.Sprintf("%d of 6 samples failed", failed)) {
		t.Errorf("doubts %q do not count the failed samples", info.Doubts)
	}
	if !strings.Contains(rec.all(), fmt.Sprintf("%d of 6 samples through %s failed: GET /apis: HTTP 503", failed, lb)) {
		t.Errorf("no warning for the failed samples:\n%s", rec.all())
	}
	// Three live leases, one class: the class is taken to hold all three apiservers, one of
	// them an estimate.
	if len(snap.Servers) != 3 || snap.Servers[2].LB.Identified || snap.Servers[2].ID != snap.Servers[2].Name {
		t.Errorf("servers %v: want class-1 expanded to 3 members, the third estimated", snap.ServerNames())
	}
}

// TestViaLBAutomatic: the leases' addresses accept no connection (a balancer in front of a
// private network), so discovery samples through the kubeconfig's server by itself, and says
// so.
func TestViaLBAutomatic(t *testing.T) {
	f := newLBFixture(t, nil)
	lb := roundRobin(t, f.backends()...)
	for i := range f.cluster.Leases {
		f.cluster.Leases[i] = dt.IdentityLease(f.cluster.Leases[i].Name, fmt.Sprintf("cp-%c", 'a'+i), closedAddr(t), f.now.Add(-2*time.Second))
	}
	// The servers still name their own addresses in /api; the leases do not: nothing is
	// identified, and the confidence is the model's.
	snap, rec, err := f.discover(t, lb, Options{LBSamples: 30})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rec.all(), "none of the 3 identity leases' peer-advertise addresses") || !strings.Contains(rec.all(), "as --via-lb does") {
		t.Errorf("no warning about the switch:\n%s", rec.all())
	}
	info := snap.Cluster.LB
	if info == nil || info.Samples != 30 || info.LeasesSeen != 0 || info.Classes != 2 || info.Complete() {
		t.Fatalf("cluster.lb = %+v", info)
	}
	// The model counts the samples that answered: on a loaded machine one of the 30 may time
	// out, and the confidence is then the model's for the rest, not a failure.
	if info.Answered < 20 || info.Answered > 30 {
		t.Fatalf("cluster.lb answered %d of 30 samples", info.Answered)
	}
	want := 1 - 3*math.Pow(2.0/3, float64(info.Answered))
	if info.Confidence == nil || math.Abs(*info.Confidence-want) > 1e-12 || !strings.HasPrefix(info.Model, "uniform balancer") {
		t.Errorf("confidence %v (%s), want %v", info.Confidence, info.Model, want)
	}
	if got := snap.ServerNames(); strings.Join(got, ",") != "class-1-1,class-1-2,class-2" {
		t.Errorf("servers %v", got)
	}
}

func TestViaLBRefusesEndpoints(t *testing.T) {
	_, err := Discover(context.Background(), Options{Config: dt.ClientConfig(dt.NewPKI(t), "https://127.0.0.1:1", ""), ViaLB: true, Endpoints: []string{"https://127.0.0.1:2"}})
	if err == nil || !strings.Contains(err.Error(), "--via-lb") {
		t.Errorf("err = %v, want a --via-lb usage error", err)
	}
}

func TestLBConfidence(t *testing.T) {
	for _, tc := range []struct {
		leases, seen, n int
		want            float64 // -1: nil
		model           string
	}{
		{3, 0, 30, 1 - 3*math.Pow(2.0/3, 30), "uniform balancer"},
		{3, 2, 30, 1 - 3*math.Pow(2.0/3, 30), "uniform balancer"},
		{3, 3, 5, 1, "observed"},
		{1, 0, 1, 1, "uniform balancer"}, // one apiserver: any answered sample is it
		{5, 0, 10, 1 - 5*math.Pow(0.8, 10), "uniform balancer"},
		{10, 0, 5, 0, "uniform balancer"}, // the bound exceeds 1: clamped
		{0, 0, 30, -1, "no live identity lease"},
	} {
		got, model := lbConfidence(tc.leases, tc.seen, tc.n)
		switch {
		case tc.want < 0 && got != nil, tc.want >= 0 && (got == nil || math.Abs(*got-tc.want) > 1e-12):
			t.Errorf("lbConfidence(%d, %d, %d) = %v, want %v", tc.leases, tc.seen, tc.n, got, tc.want)
		case !strings.HasPrefix(model, tc.model):
			t.Errorf("lbConfidence(%d, %d, %d) model %q, want %q…", tc.leases, tc.seen, tc.n, model, tc.model)
		}
	}
}

func TestMemberCounts(t *testing.T) {
	class := func(samples, leases int) *serverClass {
		c := &serverClass{samples: make([]*lbSample, samples)}
		for i := 0; i < leases; i++ {
			c.leases = append(c.leases, classLease{})
		}
		return c
	}
	for _, tc := range []struct {
		name    string
		classes []*serverClass
		live    int
		want    []int
	}{
		{"all identified", []*serverClass{class(20, 2), class(10, 1)}, 3, []int{2, 1}},
		{"none identified, shares 2:1", []*serverClass{class(20, 0), class(10, 0)}, 3, []int{2, 1}},
		{"none identified, 5 servers 3:2", []*serverClass{class(18, 0), class(12, 0)}, 5, []int{3, 2}},
		{"a small class still holds one", []*serverClass{class(29, 0), class(1, 0)}, 3, []int{2, 1}},
		{"more classes than leases", []*serverClass{class(10, 0), class(10, 0), class(10, 0)}, 2, []int{1, 1, 1}},
		{"leases unknown", []*serverClass{class(10, 0), class(20, 0)}, 0, []int{1, 1}},
		{"one unseen lease goes to the larger share", []*serverClass{class(20, 1), class(10, 1)}, 3, []int{2, 1}},
	} {
		answered := 0
		for _, c := range tc.classes {
			answered += len(c.samples)
		}
		if got := memberCounts(tc.classes, tc.live, answered); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: memberCounts = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestClassKey(t *testing.T) {
	on, off := snapshot.Ptr(true), snapshot.Ptr(false)
	base := func() snapshot.Server {
		return snapshot.Server{Version: "v1.36.3", DiscoveryFormat: snapshot.DiscoveryNoPeer,
			APIs: &snapshot.DiscoveryDocument{ETag: `"AAAA1111BBBB2222CCCC"`}, CoreAPI: &snapshot.DiscoveryDocument{ETag: `"DDDD"`},
			PeerProxy: snapshot.PeerProxy{GateEnabled: on, FilterInstalled: on, PeerAggregatedDiscovery: on}}
	}
	for _, tc := range []struct {
		name   string
		change func(*snapshot.Server)
		same   bool
	}{
		{"identical", func(*snapshot.Server) {}, true},
		{"evidence text differs only", func(s *snapshot.Server) { s.PeerProxy.Evidence = []string{"x"} }, true},
		{"patch version", func(s *snapshot.Server) { s.Version = "v1.36.4" }, false},
		{"emulated version", func(s *snapshot.Server) { s.EmulatedVersion = "1.35" }, false},
		{"/apis ETag", func(s *snapshot.Server) { s.APIs.ETag = `"EEEE"` }, false},
		{"/api ETag", func(s *snapshot.Server) { s.CoreAPI.ETag = `"FFFF"` }, false},
		{"no --peer-ca-file: filter off", func(s *snapshot.Server) { s.PeerProxy.FilterInstalled = off; s.PeerProxy.PeerAggregatedDiscovery = off }, false},
		{"gate off", func(s *snapshot.Server) { s.PeerProxy.GateEnabled = off }, false},
		{"filter unknown", func(s *snapshot.Server) { s.PeerProxy.FilterInstalled = nil }, false},
	} {
		a, b := base(), base()
		tc.change(&b)
		ka, _ := classKey(&a)
		kb, _ := classKey(&b)
		if (ka == kb) != tc.same {
			t.Errorf("%s: same class = %v, want %v\n%s\n%s", tc.name, ka == kb, tc.same, ka, kb)
		}
	}
	// Without ETags the resources decide.
	a, b := base(), base()
	a.APIs.ETag, b.APIs.ETag = "", ""
	a.Resources = []snapshot.Resource{{Group: "batch", Version: "v1", Resource: "jobs"}}
	ka, _ := classKey(&a)
	kb, words := classKey(&b)
	if ka == kb {
		t.Errorf("different resources without ETags in one class: %s", ka)
	}
	if !strings.Contains(words, "resources ") {
		t.Errorf("words %q do not name the resources digest", words)
	}
	_, words = classKey(&snapshot.Server{Version: "v1.36.3", APIs: &snapshot.DiscoveryDocument{ETag: `"` + strings.Repeat("A", 128) + `"`}})
	if !strings.Contains(words, `/apis ETag "AAAAAAAAAAAA…"`) {
		t.Errorf("words %q: want the ETag shortened", words)
	}
}

func TestIdentifyLeasesTwoClasses(t *testing.T) {
	l := identityLease{name: "apiserver-x", hostname: "cp-x", address: "10.0.0.1:6443"}
	sample := &lbSample{r: &result{serverAddresses: []string{"10.0.0.1:6443"}}}
	c1 := &serverClass{name: "class-1", samples: []*lbSample{sample}}
	c2 := &serverClass{name: "class-2", samples: []*lbSample{sample}}
	seen, doubts := identifyLeases([]*serverClass{c1, c2}, []*identityLease{&l})
	if seen != 1 || len(doubts) != 1 || !strings.Contains(doubts[0], "answered as class-1 and class-2") {
		t.Errorf("seen %d, doubts %q", seen, doubts)
	}
}
