package discover

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/rest"

	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
)

// TestOddTextIsData: control characters in what a cluster or a kubeconfig names — a lease's
// hostname and holder, an APIService's condition message, an aggregated group's name, a
// context's name — are data: the snapshot records them escaped, a warning names the field,
// and nothing reports an internal error.
func TestOddTextIsData(t *testing.T) {
	const esc = "\x1b]0;pwned\x07\x1b[2J"
	apiServices := `{"kind":"APIServiceList","apiVersion":"apiregistration.k8s.io/v1","items":[{"metadata":{"name":"v1beta1.metrics.k8s.io"},` +
		`"spec":{"group":"metrics.k8s.io","version":"v1beta1","service":{"namespace":"kube-system","name":"metrics-server"}},` +
		`"status":{"conditions":[{"type":"Available","status":"False","reason":"FailedDiscoveryCheck","message":"failing ` + strings.ReplaceAll(strings.ReplaceAll(esc, "\x1b", `\u001b`), "\x07", `\u0007`) + `"}]}}]}`
	tests := []struct {
		name  string
		setup func(p *dt.PKI, cluster *dt.Cluster, o *Options)
		want  string // in a warning
	}{
		{"lease hostname", func(p *dt.PKI, cluster *dt.Cluster, o *Options) {
			a := newFake(t, p, cluster)
			cluster.Leases = []coordinationv1.Lease{dt.IdentityLease("apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa", "cp-a"+esc, a.Addr(), time.Now())}
			o.Config = dt.ClientConfig(p, a.URL(), "")
		}, `servers[0].name`},
		{"lease holderIdentity", func(p *dt.PKI, cluster *dt.Cluster, o *Options) {
			a := newFake(t, p, cluster)
			l := dt.IdentityLease("apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa", "cp-a", a.Addr(), time.Now())
			holder := "apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa_" + esc
			l.Spec.HolderIdentity = &holder
			cluster.Leases = []coordinationv1.Lease{l}
			o.Config = dt.ClientConfig(p, a.URL(), "")
		}, `holderIdentity`},
		{"APIService condition message", func(p *dt.PKI, cluster *dt.Cluster, o *Options) {
			cluster.APIServicesJSON = []byte(apiServices)
			a := newFake(t, p, cluster)
			cluster.Leases = []coordinationv1.Lease{dt.IdentityLease("apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa", "cp-a", a.Addr(), time.Now())}
			o.Config = dt.ClientConfig(p, a.URL(), "")
		}, `cluster.apiServices[0]`},
		{"aggregated group name", func(p *dt.PKI, cluster *dt.Cluster, o *Options) {
			evil := dt.Group("evil"+esc+".example.com", dt.Ver("v1", dt.Resource("things"+esc, "Thing", true)))
			a := (&dt.Server{Cluster: cluster, GitVersion: "v1.36.3", Mode: dt.ModeNoPeer, Core: dt.CoreGroup(),
				Groups: append(dt.BuiltinGroups(true), evil), Hooks: dt.Hooks136}).Start(t, p)
			cluster.Leases = []coordinationv1.Lease{dt.IdentityLease("apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa", "cp-a", a.Addr(), time.Now())}
			o.Config = dt.ClientConfig(p, a.URL(), "")
		}, `resources`},
		{"context name", func(p *dt.PKI, cluster *dt.Cluster, o *Options) {
			a := newFake(t, p, cluster)
			cluster.Leases = []coordinationv1.Lease{dt.IdentityLease("apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa", "cp-a", a.Addr(), time.Now())}
			o.Contexts = []string{"ctx" + esc}
			o.ContextConfig = func(name string) (*rest.Config, error) {
				if name == "ctx"+esc {
					return dt.ClientConfig(p, a.URL(), ""), nil
				}
				return nil, fmt.Errorf("context %q is not in the kubeconfig", name)
			}
			o.Config = dt.ClientConfig(p, a.URL(), "")
		}, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := dt.NewPKI(t)
			cluster := &dt.Cluster{}
			var o Options
			tt.setup(p, cluster, &o)
			var rec recorder
			snap, err := discoverRT(t, context.Background(), rec.opts(o))
			if err != nil {
				t.Fatalf("odd text stopped the inspection: %v", err)
			}
			if err := snap.Validate(); err != nil {
				t.Fatalf("snapshot not valid: %v", err)
			}
			data, _ := snap.Marshal(true)
			if strings.ContainsAny(string(data), "\x1b\x07") {
				t.Errorf("snapshot holds raw control characters")
			}
			if tt.want != "" && !strings.Contains(rec.all(), tt.want) {
				t.Errorf("no warning naming %q:\n%s", tt.want, rec.all())
			}
			if strings.ContainsAny(rec.all(), "\x1b\x07") {
				t.Errorf("warnings hold raw control characters: %q", rec.all())
			}
		})
	}
}

// TestLeaseWatchNamesAsSnapshot: the lease watch names a server whose hostname holds control
// characters as the snapshot does, so that watch matches its leases to its servers.
func TestLeaseWatchNamesAsSnapshot(t *testing.T) {
	l := dt.IdentityLease("apiserver-a\x1b[2J", "cp-a\x1b]0;pwned\x07 x", "10.0.0.1:6443\x1b", time.Now())
	il := identityLeaseOf(&l)
	if il.Hostname != `cp-a\x1b]0;pwned\x07\x20x` || il.Name != `apiserver-a\x1b[2J` || il.Address != `10.0.0.1:6443\x1b` || strings.Contains(il.Holder, "\x1b") {
		t.Errorf("lease read as %+v", il)
	}
}
