package discover

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/pkg/basis"
	"github.com/mvpctl/mvpctl/pkg/report"
	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
)

func newFake(t *testing.T, p *dt.PKI, cluster *dt.Cluster) *dt.Server {
	return (&dt.Server{Cluster: cluster, GitVersion: "v1.36.3", Mode: dt.ModeNoPeer, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true), Hooks: dt.Hooks136}).Start(t, p)
}

func localhostURL(f *dt.Server) string {
	return "https://localhost:" + f.URL()[strings.LastIndex(f.URL(), ":")+1:]
}

// TestEndpointMatchedToLease: an --endpoint under another name than the lease's address is
// the same apiserver; /api's serverAddressByClientCIDRs says so, and the endpoint keeps the
// identity while the lease-address entry is dropped.
func TestEndpointMatchedToLease(t *testing.T) {
	p := dt.NewPKI(t)
	cluster := &dt.Cluster{}
	a := newFake(t, p, cluster)
	cluster.Leases = []coordinationv1.Lease{dt.IdentityLease("apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa", "cp-a", a.Addr(), time.Now())}
	var rec recorder
	snap, err := discoverRT(t, context.Background(), rec.opts(Options{Config: dt.ClientConfig(p, a.URL(), ""), Endpoints: []string{localhostURL(a) + "/"}}))
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Servers) != 1 {
		t.Fatalf("servers %v", snap.ServerNames())
	}
	s := snap.Servers[0]
	if s.Name != "cp-a" || s.ID != "apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa" || s.FoundBy != FoundByEndpoint || s.Endpoint != localhostURL(a) || !s.Reachable {
		t.Errorf("%+v", s)
	}
	if ev := strings.Join(s.PeerProxy.Evidence, "\n"); !strings.Contains(ev, "matched: /api serverAddressByClientCIDRs "+a.Addr()) {
		t.Errorf("evidence %q", s.PeerProxy.Evidence)
	}
	if !strings.Contains(rec.all(), "server localhost:"+a.Addr()[strings.LastIndex(a.Addr(), ":")+1:]+" is apiserver cp-a (lease apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa) (it advertises "+a.Addr()+"); it was also read at that address, which is left out") {
		t.Errorf("warnings %q", rec.warnings)
	}
}

// TestEndpointWithoutLease: a server the leases do not describe keeps host:port as its name
// and gets no ID, with a warning.
func TestEndpointWithoutLease(t *testing.T) {
	p := dt.NewPKI(t)
	cluster := &dt.Cluster{}
	a := newFake(t, p, cluster)
	x := newFake(t, p, &dt.Cluster{})
	x.Advertise = "10.9.9.9:6443"
	cluster.Leases = []coordinationv1.Lease{dt.IdentityLease("apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa", "cp-a", a.Addr(), time.Now())}
	var rec recorder
	snap, err := discoverRT(t, context.Background(), rec.opts(Options{Config: dt.ClientConfig(p, a.URL(), ""), Endpoints: []string{x.URL()}}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := snap.ServerNames(), []string{x.Addr(), "cp-a"}; !slices.Equal(got, want) {
		t.Fatalf("servers %v, want %v", got, want)
	}
	if s := snap.Find(x.Addr()); s.ID != "" || s.FoundBy != FoundByEndpoint || !s.Reachable {
		t.Errorf("%+v", s)
	}
	if !strings.Contains(rec.all(), "server "+x.Addr()+" matches no identity lease") {
		t.Errorf("warnings %q", rec.warnings)
	}
}

// TestContexts: one context per apiserver. Lease addresses are not dialled; each context is
// matched to its lease; a lease no context reaches is still listed, as not contacted.
func TestContexts(t *testing.T) {
	p := dt.NewPKI(t)
	cluster := &dt.Cluster{}
	a, b := newFake(t, p, cluster), newFake(t, p, cluster)
	dead := closedAddr(t)
	cluster.Leases = []coordinationv1.Lease{
		dt.IdentityLease("apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa", "cp-a", a.Addr(), time.Now()),
		dt.IdentityLease("apiserver-bbbbbbbbbbbbbbbbbbbbbbbbbb", "cp-b", b.Addr(), time.Now()),
		dt.IdentityLease("apiserver-cccccccccccccccccccccccccc", "cp-c", dead, time.Now().Add(-time.Hour)),
	}
	contexts := map[string]*rest.Config{
		"ctx-a": dt.ClientConfig(p, a.URL(), ""),         // same host:port as the lease
		"ctx-b": dt.ClientConfig(p, localhostURL(b), ""), // another name for it
	}
	var rec recorder
	snap, err := discoverRT(t, context.Background(), rec.opts(Options{
		Contexts: []string{"ctx-a", "ctx-b"},
		ContextConfig: func(name string) (*rest.Config, error) {
			if c, ok := contexts[name]; ok {
				return c, nil
			}
			return nil, fmt.Errorf("context %q is not in the kubeconfig", name)
		},
		Config: dt.ClientConfig(p, a.URL(), ""),
	}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := snap.ServerNames(), []string{"cp-a", "cp-b", "cp-c"}; !slices.Equal(got, want) {
		t.Fatalf("servers %v, want %v", got, want)
	}
	for _, name := range []string{"cp-a", "cp-b"} {
		if s := snap.Find(name); s.FoundBy != FoundByContext || !s.Reachable || s.ID == "" {
			t.Errorf("%s: %+v", name, s)
		}
	}
	c := snap.Find("cp-c")
	if c.Reachable || !strings.Contains(c.Error, "not contacted: no --endpoint or context reached it — add --endpoint https://"+dead) {
		t.Errorf("cp-c: %+v", c)
	}
	if c.PeerProxy.EndpointResolvable == nil || *c.PeerProxy.EndpointResolvable {
		t.Errorf("cp-c renewed an hour ago: endpointResolvable %v", c.PeerProxy.EndpointResolvable)
	}
	if snap.Source != `contexts "ctx-a", "ctx-b"` {
		t.Errorf("source %q", snap.Source)
	}
	if line := FailureLine(c); line != "server cp-c ("+dead+"): "+c.Error {
		t.Errorf("failure line %q", line)
	}

	_, err = Discover(context.Background(), Options{Contexts: []string{"nope"}, ContextConfig: func(name string) (*rest.Config, error) {
		return nil, fmt.Errorf("context %q is not in the kubeconfig", name)
	}})
	if err == nil || !strings.Contains(err.Error(), `--contexts: context "nope" is not in the kubeconfig`) {
		t.Errorf("unknown context: %v", err)
	}
}

// TestTLSServerNameFallback: a node's serving certificate that names only
// kubernetes.default.svc (not its IP, not the load balancer) is still verified.
func TestTLSServerNameFallback(t *testing.T) {
	p := dt.NewPKI(t)
	cluster := &dt.Cluster{}
	lb := newFake(t, p, cluster)
	only := p.ServingCert(t, []string{"kubernetes.default.svc"})
	x := (&dt.Server{Cluster: cluster, GitVersion: "v1.36.3", Mode: dt.ModeNoPeer, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true), Cert: &only}).Start(t, p)
	cluster.Leases = []coordinationv1.Lease{
		dt.IdentityLease("apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa", "cp-a", lb.Addr(), time.Now()),
		dt.IdentityLease("apiserver-xxxxxxxxxxxxxxxxxxxxxxxxxx", "cp-x", x.Addr(), time.Now()),
	}
	snap, err := discoverRT(t, context.Background(), Options{Config: dt.ClientConfig(p, lb.URL(), "")})
	if err != nil {
		t.Fatal(err)
	}
	s := snap.Find("cp-x")
	if !s.Reachable {
		t.Fatalf("cp-x: %s", s.Error)
	}
	if ev := strings.Join(s.PeerProxy.Evidence, "\n"); !strings.Contains(ev, "TLS server name kubernetes.default.svc used: the serving certificate does not name 127.0.0.1") {
		t.Errorf("evidence %q", s.PeerProxy.Evidence)
	}

	// --tls-server-name is taken alone: no fallback behind the user's back.
	cfg := dt.ClientConfig(p, lb.URL(), "")
	cfg.TLSClientConfig.ServerName = "localhost"
	snap, err = discoverRT(t, context.Background(), Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if s := snap.Find("cp-x"); s.Reachable || !strings.Contains(s.Error, `not valid for "localhost" (it names kubernetes.default.svc)`) {
		t.Errorf("cp-x with --tls-server-name localhost: %+v", s)
	}
}

// TestLoneLease: a cluster with one identity lease without an address (gate off) and the
// kubeconfig server: the server is read and given that lease by elimination.
func TestLoneLease(t *testing.T) {
	p := dt.NewPKI(t)
	cluster := &dt.Cluster{}
	a := newFake(t, p, cluster)
	a.Hooks = nil // gate off: no MVP hooks
	cluster.Leases = []coordinationv1.Lease{dt.IdentityLease("apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa", "kind-control-plane", "", time.Now())}
	snap, err := discoverRT(t, context.Background(), Options{Config: dt.ClientConfig(p, a.URL(), "")})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Servers) != 1 || snap.Partial() {
		t.Fatalf("servers %v partial %v", snap.ServerNames(), snap.Partial())
	}
	s := snap.Servers[0]
	if s.Name != "kind-control-plane" || s.FoundBy != FoundByContext || s.ID == "" {
		t.Errorf("%+v", s)
	}
	pp := s.PeerProxy
	if pp.GateEnabled == nil || *pp.GateEnabled || pp.FilterInstalled == nil || *pp.FilterInstalled || pp.PeerAggregatedDiscovery == nil || *pp.PeerAggregatedDiscovery {
		t.Errorf("gate-off evidence: %+v", pp)
	}
	if !strings.Contains(strings.Join(pp.Evidence, "\n"), "by elimination: the only server read without a lease") {
		t.Errorf("evidence %q", pp.Evidence)
	}
}

// TestLeasesUnreadable: without permission to list leases, the kubeconfig's server is read
// alone, and the warning says what is lost.
func TestLeasesUnreadable(t *testing.T) {
	p := dt.NewPKI(t)
	a := newFake(t, p, &dt.Cluster{})
	a.Override = map[string]http.HandlerFunc{"/apis/coordination.k8s.io/v1/namespaces/kube-system/leases": func(w http.ResponseWriter, r *http.Request) {
		dt.WriteStatus(w, http.StatusForbidden, metav1.StatusReasonForbidden, `leases.coordination.k8s.io is forbidden: User "bob" cannot list resource "leases" in API group "coordination.k8s.io" in the namespace "kube-system"`)
	}}
	var rec recorder
	snap, err := discoverRT(t, context.Background(), rec.opts(Options{Config: dt.ClientConfig(p, a.URL(), "")}))
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Servers) != 1 || !snap.Servers[0].Reachable || snap.Servers[0].FoundBy != FoundByContext {
		t.Fatalf("%+v", snap.Servers)
	}
	if w := rec.all(); !strings.Contains(w, "cannot list the identity leases in kube-system") || !strings.Contains(w, `User "bob" cannot list resource "leases"`) {
		t.Errorf("warnings %q", rec.warnings)
	}
	// The snapshot records it, and is partial for it: the plane's other apiservers, and any
	// that are down, are not known.
	il := snap.Cluster.IdentityLeases
	if il == nil || il.Listed || !strings.Contains(il.Error, `User "bob" cannot list resource "leases"`) || strings.Contains(il.Error, "\n") {
		t.Errorf("identityLeases = %+v", il)
	}
	for what, r := range map[string]report.Result{"TakenResult": basis.OfSnapshot(snap).TakenResult(), "MadeResult": basis.OfSnapshot(snap).MadeResult()} {
		if _, ok := r.Reason.(basis.LeasesNotListed); r.Class != report.Partial || !ok {
			t.Errorf("%s = %v %v, want partial for the unlisted leases", what, r.Class, r.Reason)
		}
	}
}

// TestLeasesListedRecorded: a snapshot whose identity leases were listed says so, and is not
// partial for it.
func TestLeasesListedRecorded(t *testing.T) {
	p := dt.NewPKI(t)
	cluster := &dt.Cluster{}
	a := newFake(t, p, cluster)
	cluster.Leases = []coordinationv1.Lease{dt.IdentityLease("apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa", "cp-a", a.Addr(), time.Now())}
	snap, err := discoverRT(t, context.Background(), Options{Config: dt.ClientConfig(p, a.URL(), "")})
	if err != nil {
		t.Fatal(err)
	}
	if il := snap.Cluster.IdentityLeases; il == nil || !il.Listed || il.Error != "" {
		t.Errorf("identityLeases = %+v, want listed", il)
	}
	if r := basis.OfSnapshot(snap).TakenResult(); !r.OK() {
		t.Errorf("TakenResult = %v %v", r.Class, r.Reason)
	}
}

// TestGateOffServerByElimination: a gate-off server's lease has no address. Reached with
// --endpoint, it is the only server without a lease, and its lease the only live unclaimed
// one, so they are paired; a stale unclaimed lease would not be.
func TestGateOffServerByElimination(t *testing.T) {
	p := dt.NewPKI(t)
	cluster := &dt.Cluster{}
	a := newFake(t, p, cluster)
	off := (&dt.Server{Cluster: cluster, GitVersion: "v1.37.1", Mode: dt.ModeNoPeer, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true)}).Start(t, p)
	offLease := dt.IdentityLease("apiserver-ffffffffffffffffffffffffff", "cp-off", "", time.Now().Add(-4*time.Second))
	cluster.Leases = []coordinationv1.Lease{dt.IdentityLease("apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa", "cp-a", a.Addr(), time.Now()), offLease}

	snap, err := discoverRT(t, context.Background(), Options{Config: dt.ClientConfig(p, a.URL(), ""), Endpoints: []string{off.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := snap.ServerNames(), []string{"cp-a", "cp-off"}; !slices.Equal(got, want) || snap.Partial() {
		t.Fatalf("servers %v (partial %v), want %v", got, snap.Partial(), want)
	}
	s := snap.Find("cp-off")
	if s.ID != "apiserver-ffffffffffffffffffffffffff" || s.FoundBy != FoundByEndpoint || s.PeerProxy.GateEnabled == nil || *s.PeerProxy.GateEnabled {
		t.Errorf("%+v", s)
	}

	// The same lease, last renewed long ago: its server is down, not the one read.
	cluster.Leases[1] = dt.IdentityLease("apiserver-ffffffffffffffffffffffffff", "cp-off", "", time.Now().Add(-10*time.Minute))
	snap, err = discoverRT(t, context.Background(), Options{Config: dt.ClientConfig(p, a.URL(), ""), Endpoints: []string{off.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.ServerNames(); len(got) != 3 || snap.Find("cp-off").Reachable || snap.Find(off.Addr()).ID != "" {
		t.Errorf("servers %v", got)
	}
}

// TestSeveralGateOffServers: two gate-off servers read with --endpoint next to two live leases
// without addresses. Which lease is whose cannot be told; the snapshot lists the two servers,
// reachable and without IDs, and not the leases again as servers that were not contacted.
func TestSeveralGateOffServers(t *testing.T) {
	p := dt.NewPKI(t)
	cluster := &dt.Cluster{}
	start := func() *dt.Server {
		return (&dt.Server{Cluster: cluster, GitVersion: "v1.35.4", Mode: dt.ModeNoPeer, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true)}).Start(t, p)
	}
	x, y := start(), start()
	cluster.Leases = []coordinationv1.Lease{
		dt.IdentityLease("apiserver-xxxxxxxxxxxxxxxxxxxxxxxxxx", "cp-x", "", time.Now().Add(-2*time.Second)),
		dt.IdentityLease("apiserver-yyyyyyyyyyyyyyyyyyyyyyyyyy", "cp-y", "", time.Now().Add(-5*time.Second)),
	}
	var rec recorder
	snap, err := discoverRT(t, context.Background(), rec.opts(Options{Config: dt.ClientConfig(p, x.URL(), ""), Endpoints: []string{x.URL(), y.URL()}, NoLeaseServers: true}))
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Servers) != 2 || snap.Partial() {
		t.Fatalf("servers %v (partial %v)", snap.ServerNames(), snap.Partial())
	}
	for _, s := range snap.Servers {
		if s.ID != "" || !s.Reachable {
			t.Errorf("%s: id %q reachable %v", s.Name, s.ID, s.Reachable)
		}
	}
	if w := rec.all(); !strings.Contains(w, "which is whose cannot be told") {
		t.Errorf("warnings %q", rec.warnings)
	}
}
