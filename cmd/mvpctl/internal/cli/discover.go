package cli

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"
	// Cloud and OIDC auth providers, so every kubeconfig kubectl can use works here too.
	_ "k8s.io/client-go/plugin/pkg/client/auth"

	"github.com/mvpctl/mvpctl/pkg/basis"
	"github.com/mvpctl/mvpctl/pkg/discover"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// DiscoverFlags select the apiservers of a live control plane and bound the time spent on
// each. The connection flags themselves (--kubeconfig, --context, --token, ...) are the root
// command's ConfigFlags.
type DiscoverFlags struct {
	Endpoints   []string
	Contexts    []string
	Timeout     time.Duration
	Concurrency int
	Leases      bool
	ViaLB       bool
	LBSamples   int
	// Manifests are --static-pod-manifest SERVER=FILE; OldManifests the same given with its
	// deprecated name, --manifest.
	Manifests    []string
	OldManifests []string
	KCP          string
	fs           *pflag.FlagSet // to tell which of these flags the user set
	// RequireLeases: a failed list of the identity leases fails the read (watch, after its
	// first read found servers by their leases: discover.Options.RequireLeases).
	RequireLeases bool
	// Instead is what the command can read instead of a live cluster, for the hint of an error
	// that found none ("pass --snapshot FILE"); "" when it needs one (snapshot, watch, probe).
	Instead string
	// KnownServers are the apiservers a watch's last read reached: the leases are listed
	// through them when the kubeconfig's server does not answer (discover.Options.KnownServers).
	KnownServers []string
}

// discoverFlagNames are the flags of DiscoverFlags, which only a live discovery reads.
var discoverFlagNames = []string{"endpoint", "contexts", "timeout", "concurrency", "leases", "via-lb", "lb-samples", StaticPodManifestFlag, oldStaticPodManifestFlag, "kubeadm-control-plane"}

// SetFlags lists the DiscoverFlags the user set on the command line.
func (d *DiscoverFlags) SetFlags() []string {
	var set []string
	for _, n := range discoverFlagNames {
		if d.fs != nil && d.fs.Changed(n) {
			set = append(set, "--"+n)
		}
	}
	return set
}

// AddFlags adds the flags of a live read.
func (d *DiscoverFlags) AddFlags(fs *pflag.FlagSet) {
	d.fs = fs
	fs.StringArrayVar(&d.Endpoints, "endpoint", nil, "also read the apiserver at this URL, with the kubeconfig's credentials (repeatable)")
	fs.StringSliceVar(&d.Contexts, "contexts", nil, "read one apiserver per kubeconfig context, each with its own credentials (comma-separated); identity-lease addresses are then not dialled")
	fs.DurationVar(&d.Timeout, "timeout", discover.DefaultTimeout, "time allowed for all requests to one apiserver")
	fs.IntVar(&d.Concurrency, "concurrency", discover.DefaultConcurrency, "how many apiservers to read at once")
	fs.BoolVar(&d.ViaLB, "via-lb", false, "sample the apiservers through the kubeconfig's server (a load balancer) instead of dialling each: --lb-samples fresh connections, grouped into server classes (docs/snapshot.md)")
	fs.IntVar(&d.LBSamples, "lb-samples", snapshot.LBDefaultSamples, fmt.Sprintf("with --via-lb (or when no identity lease address can be dialled): how many connections to sample, %d to %d, each bounded by --timeout", snapshot.LBMinSamples, snapshot.LBMaxSamples))
	fs.StringArrayVar(&d.Manifests, StaticPodManifestFlag, nil, "SERVER=FILE: the static pod manifest (/etc/kubernetes/manifests/kube-apiserver.yaml) stating the flags of the apiserver named SERVER in the snapshot, over kube-system/kubeadm-config's (repeatable; docs/snapshot.md; not preflight --manifests, the objects clients apply)")
	fs.StringArrayVar(&d.OldManifests, oldStaticPodManifestFlag, nil, "the former name of --"+StaticPodManifestFlag)
	// Hidden, and warned about on stderr when used (cobra prints MarkDeprecated's notice on
	// the command's output, stdout here).
	_ = fs.MarkHidden(oldStaticPodManifestFlag)
	fs.StringVar(&d.KCP, "kubeadm-control-plane", "", "FILE: a Cluster API KubeadmControlPlane (kubectl get kcp NAME -o yaml, from the management cluster) stating every apiserver's flags, over kube-system/kubeadm-config's (docs/snapshot.md)")
	fs.BoolVar(&d.Leases, "leases", true, "dial every apiserver at the address its identity lease in kube-system advertises; with --leases=false only --endpoint, --contexts or the kubeconfig's server are read")
}

// Validate checks the flags of a live read together: its bounds, and --via-lb apart from the
// flags that name apiservers one by one.
func (d *DiscoverFlags) Validate() error {
	switch {
	case d.Concurrency < 1:
		return fmt.Errorf("--concurrency must be at least 1, got %d", d.Concurrency)
	case d.Timeout <= 0:
		return fmt.Errorf("--timeout must be positive, got %s", d.Timeout)
	case d.LBSamples < snapshot.LBMinSamples || d.LBSamples > snapshot.LBMaxSamples:
		return fmt.Errorf("--lb-samples must be %d to %d, got %d", snapshot.LBMinSamples, snapshot.LBMaxSamples, d.LBSamples)
	case d.ViaLB && (len(d.Endpoints) > 0 || len(d.Contexts) > 0):
		return fmt.Errorf("--via-lb samples the kubeconfig's server: it cannot be used with --endpoint or --contexts, which name apiservers one by one")
	}
	return nil
}

// Discover takes a live snapshot. Progress goes to stderr when it is a terminal; warnings and
// one line per unreadable server follow the discovery. A partial snapshot is returned without
// error: the caller decides what partial means for its exit code (snapshot.Partial). A
// snapshot in which no apiserver could be read is an error, and so is having no kubeconfig at
// all: there is no evidence to print a result from, and the one line says why (the warnings
// would only repeat the same cause).
func (d *DiscoverFlags) Discover(ctx context.Context, env Env) (*snapshot.Snapshot, error) {
	snap, err := d.DiscoverQuiet(ctx, env)
	if err != nil {
		return nil, err
	}
	for i := range snap.Servers {
		if !snap.Servers[i].Reachable {
			output.Fprintf(env.ErrOut, "warning: %s\n", discover.FailureLine(&snap.Servers[i]))
		}
	}
	return snap, nil
}

// DiscoverQuiet is Discover without the line per unreadable server: for a command that reads
// the plane again and again (watch), where a server down is an event of its own. Warnings are
// printed once per run (Env.Warn).
func (d *DiscoverFlags) DiscoverQuiet(ctx context.Context, env Env) (*snapshot.Snapshot, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if len(d.OldManifests) > 0 && env.Warn != nil {
		env.Warn("--" + oldStaticPodManifestFlag + " is deprecated: use --" + StaticPodManifestFlag + " SERVER=FILE (an apiserver's static pod manifest; preflight --manifests reads the objects clients apply)")
	}
	manifests, err := ReadStaticPodManifests(d.Manifests, d.OldManifests)
	if err != nil {
		return nil, err
	}
	kcp, err := ReadControlPlane(d.KCP)
	if err != nil {
		return nil, err
	}
	if err := RequireKubeconfig(env.ConfigFlags, d.Instead); err != nil {
		return nil, err
	}
	if cfg, err := env.ConfigFlags.ToRESTConfig(); err == nil {
		env.WarnLoweredTrust(cfg)
	}
	for _, name := range d.Contexts {
		if cfg, err := discover.ContextConfig(env.ConfigFlags, strings.TrimSpace(name)); err == nil {
			env.WarnLoweredTrust(cfg)
		}
	}
	errOut := env.ErrOut
	var (
		mu       sync.Mutex
		warnings []string
	)
	opts := discover.Options{
		RESTClientGetter: env.ConfigFlags,
		Endpoints:        d.Endpoints,
		Contexts:         d.Contexts,
		NoLeaseServers:   !d.Leases,
		ViaLB:            d.ViaLB,
		LBSamples:        d.LBSamples,
		RequireLeases:    d.RequireLeases,
		KnownServers:     d.KnownServers,
		Manifests:        manifests,
		ControlPlane:     kcp,
		Timeout:          d.Timeout,
		Concurrency:      d.Concurrency,
		Warn: func(s string) {
			mu.Lock()
			defer mu.Unlock()
			warnings = append(warnings, s)
		},
	}
	if env.ErrIsTerminal {
		opts.Progress = func(s string) { output.Fprintf(errOut, "[discovery] %s\n", s) }
	}
	snap, err := discover.Discover(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := RequireReachable(snap, liveHint(d.Instead)); err != nil {
		return nil, err
	}
	for _, w := range warnings {
		env.Warn(w)
	}
	PrintLBNotes(env.Warn, snap)
	return snap, nil
}

// PrintLBNotes says, before any result, that a snapshot sampled through a load balancer has
// outcomes per server class, estimated from samples, and what is in doubt.
func PrintLBNotes(warn func(string), snap *snapshot.Snapshot) {
	lb := snap.Cluster.LB
	if lb == nil {
		return
	}
	warn(lb.Summary())
	for _, d := range lb.Doubts {
		warn(d)
	}
}

// PrintLeasesNote says, before any result, that a snapshot file's identity leases could not
// be listed when it was taken: what is made from it covers the servers found otherwise only.
// (A live read says it as it happens.)
func PrintLeasesNote(warn func(string), snap *snapshot.Snapshot) {
	if why := basis.LeasesOf(snap); why != nil {
		warn(why.String())
	}
}
