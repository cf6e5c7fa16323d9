package discover

import (
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// ErrLeasesNotListed is Discover's error when Options.RequireLeases is set and the identity
// leases could not be listed.
var ErrLeasesNotListed = errors.New("cannot list the identity leases in kube-system")

// Defaults for Options.Timeout and Options.Concurrency.
const (
	DefaultTimeout     = 10 * time.Second
	DefaultConcurrency = 4
)

// KubeconfigGetter is the kubeconfig as the connection flags select it (cmd/mvpctl/internal/kubeflags
// implements it).
type KubeconfigGetter interface {
	ToRESTConfig() (*rest.Config, error)
	ToRawKubeConfigLoader() clientcmd.ClientConfig
}

// Options say where the control plane is and how to reach it.
type Options struct {
	// RESTClientGetter supplies the kubeconfig (usually the root command's ConfigFlags, so
	// --kubeconfig, --context, --server, --token, --tls-server-name ... apply). It is used when
	// Config is nil, and to look up Contexts.
	RESTClientGetter KubeconfigGetter
	// Config, when set, is used instead of RESTClientGetter.ToRESTConfig(): the credentials
	// and CA for every server, and the server through which identity leases are listed.
	Config *rest.Config
	// ContextConfig returns the client config of a named kubeconfig context. Nil means: read it
	// from RESTClientGetter's kubeconfig, as written there (the connection flags, which apply
	// to the current context, do not apply to these).
	ContextConfig func(name string) (*rest.Config, error)

	// Endpoints are apiserver URLs to read in addition to those the identity leases give.
	Endpoints []string
	// Contexts are kubeconfig contexts, one per apiserver, read in addition.
	Contexts []string
	// NoLeaseServers stops the identity leases' peer-advertise addresses from being dialled:
	// only Endpoints and Contexts (or, with neither, the kubeconfig's server) are read. The
	// leases are still listed, to give those servers their identity.
	NoLeaseServers bool

	// ViaLB samples the control plane through the kubeconfig's server (a load balancer)
	// instead of dialling each apiserver: LBSamples fresh connections, grouped into server
	// classes (docs/snapshot.md, "Through a load balancer"). Discovery also does this by
	// itself, with a warning, when several identity leases' addresses all fail to connect.
	ViaLB bool
	// LBSamples is the number of samples (snapshot.LBDefaultSamples when zero; at most
	// snapshot.LBMaxSamples).
	LBSamples int
	// RequireLeases makes a failed list of the identity leases an error (ErrLeasesNotListed)
	// instead of a warning and a read of the kubeconfig's server in their stead: for a
	// caller that already knows the servers by their leases (a watch), that substitute would
	// make every server vanish for one read.
	RequireLeases bool
	// KnownServers are the URLs of apiservers known from an earlier read (a watch's last
	// snapshot): when the kubeconfig's server does not answer the lease list (it restarts:
	// upgrading the node admin.conf names comes first), the leases are listed through each of
	// these in turn, said in one warning, so the others stay observed. The kubeconfig's
	// server is tried first again at every read.
	KnownServers []string

	// Manifests are static pod manifests, each stating one server's flags (over what
	// kube-system/kubeadm-config states for every server).
	Manifests []Manifest
	// ControlPlane is a Cluster API KubeadmControlPlane, stating the flags of every server
	// without a manifest, over kube-system/kubeadm-config's.
	ControlPlane *ControlPlaneConfig

	// Timeout bounds all requests to one server together (DefaultTimeout when zero).
	Timeout time.Duration
	// Concurrency bounds how many servers are read at once (DefaultConcurrency when zero).
	Concurrency int

	// FeatureGates, when set, receives the feature gates of each server read, as its /metrics
	// reports them, or why they could not be read (from the goroutines that read the servers).
	FeatureGates func(endpoint string, gates []FeatureGate, err string)

	// Progress receives short progress lines ("found 3 apiservers via identity leases").
	Progress func(string)
	// Warn receives problems that do not stop the snapshot (a list that could not be read, a
	// stale group version skipped). Per-server failures are in the snapshot instead.
	Warn func(string)
	// Now is the clock (time.Now when nil); TakenAt and lease ages use it.
	Now func() time.Time
}

func (o *Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

func (o *Options) lbSamples() int {
	if o.LBSamples > 0 {
		return o.LBSamples
	}
	return snapshot.LBDefaultSamples
}

func (o *Options) concurrency() int {
	if o.Concurrency > 0 {
		return o.Concurrency
	}
	return DefaultConcurrency
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// baseConfig is the kubeconfig's client config: credentials for every lease-found server and
// the server the cluster-wide lists are read through first.
func (o *Options) baseConfig() (*rest.Config, error) {
	if o.Config != nil {
		return rest.CopyConfig(o.Config), nil
	}
	if o.RESTClientGetter == nil {
		return nil, errors.New("no kubeconfig: set Options.Config or Options.RESTClientGetter")
	}
	cfg, err := o.RESTClientGetter.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	return cfg, nil
}

// contextConfig returns the client config of one named context.
func (o *Options) contextConfig(name string) (*rest.Config, error) {
	if o.ContextConfig != nil {
		return o.ContextConfig(name)
	}
	return ContextConfig(o.RESTClientGetter, name)
}

// ContextConfig returns the client config of one named context of getter's kubeconfig, as
// written there (the connection flags, which apply to the current context, do not apply).
func ContextConfig(getter KubeconfigGetter, name string) (*rest.Config, error) {
	if getter == nil {
		return nil, fmt.Errorf("context %q: no kubeconfig to read it from", name)
	}
	raw, err := getter.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil, fmt.Errorf("context %q: %w", name, err)
	}
	if _, ok := raw.Contexts[name]; !ok {
		return nil, fmt.Errorf("context %q is not in the kubeconfig", name)
	}
	cfg, err := clientcmd.NewNonInteractiveClientConfig(raw, name, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("context %q: %w", name, err)
	}
	return cfg, nil
}

// currentContext names the kubeconfig context in effect (after --context); "" if unknown.
func (o *Options) currentContext() string {
	if o.Config != nil {
		return ""
	}
	return CurrentContext(o.RESTClientGetter)
}

// CurrentContext names getter's kubeconfig context in effect (after --context); "" if unknown.
func CurrentContext(getter KubeconfigGetter) string {
	if getter == nil {
		return ""
	}
	if o, ok := getter.(interface{ ContextOverride() string }); ok && o.ContextOverride() != "" {
		return o.ContextOverride()
	}
	raw, err := getter.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return ""
	}
	return raw.CurrentContext
}
