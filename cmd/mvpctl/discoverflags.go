package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"
	// Cloud and OIDC auth providers, so every kubeconfig kubectl can use works here too.
	_ "k8s.io/client-go/plugin/pkg/client/auth"

	"github.com/mvpctl/mvpctl/pkg/discover"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// discoverFlags select the apiservers of a live control plane and bound the time spent on
// each. The connection flags themselves (--kubeconfig, --context, --token, ...) are the root
// command's ConfigFlags.
type discoverFlags struct {
	endpoints   []string
	contexts    []string
	timeout     time.Duration
	concurrency int
	leases      bool
	viaLB       bool
	lbSamples   int
	manifests   []string
	kcp         string
	fs          *pflag.FlagSet // to tell which of these flags the user set
	// requireLeases: a failed list of the identity leases fails the read (watch, after its
	// first read found servers by their leases: discover.Options.RequireLeases).
	requireLeases bool
	// instead is what the command can read instead of a live cluster, for the hint of an error
	// that found none ("pass --snapshot FILE"); "" when it needs one (snapshot, watch, probe).
	instead string
	// knownServers are the apiservers a watch's last read reached: the leases are listed
	// through them when the kubeconfig's server does not answer (discover.Options.KnownServers).
	knownServers []string
}

// discoverFlagNames are the flags of discoverFlags, which only a live discovery reads.
var discoverFlagNames = []string{"endpoint", "contexts", "timeout", "concurrency", "leases", "via-lb", "lb-samples", "manifest", "kubeadm-control-plane"}

// setFlags lists the discoverFlags the user set on the command line.
func (d *discoverFlags) setFlags() []string {
	var set []string
	for _, n := range discoverFlagNames {
		if d.fs != nil && d.fs.Changed(n) {
			set = append(set, "--"+n)
		}
	}
	return set
}

func (d *discoverFlags) addFlags(fs *pflag.FlagSet) {
	d.fs = fs
	fs.StringArrayVar(&d.endpoints, "endpoint", nil, "also read the apiserver at this URL, with the kubeconfig's credentials (repeatable)")
	fs.StringSliceVar(&d.contexts, "contexts", nil, "read one apiserver per kubeconfig context, each with its own credentials (comma-separated); identity-lease addresses are then not dialled")
	fs.DurationVar(&d.timeout, "timeout", discover.DefaultTimeout, "time allowed for all requests to one apiserver")
	fs.IntVar(&d.concurrency, "concurrency", discover.DefaultConcurrency, "how many apiservers to read at once")
	fs.BoolVar(&d.viaLB, "via-lb", false, "sample the apiservers through the kubeconfig's server (a load balancer) instead of dialling each: --lb-samples fresh connections, grouped into server classes (docs/snapshot.md)")
	fs.IntVar(&d.lbSamples, "lb-samples", snapshot.LBDefaultSamples, fmt.Sprintf("with --via-lb (or when no identity lease address can be dialled): how many connections to sample, %d to %d, each bounded by --timeout", snapshot.LBMinSamples, snapshot.LBMaxSamples))
	fs.StringArrayVar(&d.manifests, "manifest", nil, "SERVER=FILE: the static pod manifest (/etc/kubernetes/manifests/kube-apiserver.yaml) stating the flags of the apiserver named SERVER in the snapshot, over kube-system/kubeadm-config's (repeatable; docs/snapshot.md)")
	fs.StringVar(&d.kcp, "kubeadm-control-plane", "", "FILE: a Cluster API KubeadmControlPlane (kubectl get kcp NAME -o yaml, from the management cluster) stating every apiserver's flags, over kube-system/kubeadm-config's (docs/snapshot.md)")
	fs.BoolVar(&d.leases, "leases", true, "dial every apiserver at the address its identity lease in kube-system advertises; with --leases=false only --endpoint, --contexts or the kubeconfig's server are read")
}

// validate checks the flags of a live read together: its bounds, and --via-lb apart from the
// flags that name apiservers one by one.
func (d *discoverFlags) validate() error {
	switch {
	case d.concurrency < 1:
		return fmt.Errorf("--concurrency must be at least 1, got %d", d.concurrency)
	case d.timeout <= 0:
		return fmt.Errorf("--timeout must be positive, got %s", d.timeout)
	case d.lbSamples < snapshot.LBMinSamples || d.lbSamples > snapshot.LBMaxSamples:
		return fmt.Errorf("--lb-samples must be %d to %d, got %d", snapshot.LBMinSamples, snapshot.LBMaxSamples, d.lbSamples)
	case d.viaLB && (len(d.endpoints) > 0 || len(d.contexts) > 0):
		return fmt.Errorf("--via-lb samples the kubeconfig's server: it cannot be used with --endpoint or --contexts, which name apiservers one by one")
	}
	return nil
}

// discover takes a live snapshot. Progress goes to stderr when it is a terminal; warnings and
// one line per unreadable server follow the discovery. A partial snapshot is returned without
// error: the caller decides what partial means for its exit code (snapshot.Partial). A
// snapshot in which no apiserver could be read is an error, and so is having no kubeconfig at
// all: there is no evidence to print a result from, and the one line says why (the warnings
// would only repeat the same cause).
func (d *discoverFlags) discover(ctx context.Context, g *globalOptions) (*snapshot.Snapshot, error) {
	snap, err := d.discoverQuiet(ctx, g)
	if err != nil {
		return nil, err
	}
	for i := range snap.Servers {
		if !snap.Servers[i].Reachable {
			output.Fprintf(g.streams.ErrOut, "warning: %s\n", discover.FailureLine(&snap.Servers[i]))
		}
	}
	return snap, nil
}

// discoverQuiet is discover without the line per unreadable server: for a command that reads
// the plane again and again (watch), where a server down is an event of its own. Warnings are
// printed once per run (globalOptions.warn).
func (d *discoverFlags) discoverQuiet(ctx context.Context, g *globalOptions) (*snapshot.Snapshot, error) {
	if err := d.validate(); err != nil {
		return nil, err
	}
	manifests, err := readManifests(d.manifests)
	if err != nil {
		return nil, err
	}
	kcp, err := readControlPlane(d.kcp)
	if err != nil {
		return nil, err
	}
	if err := requireKubeconfig(g, d.instead); err != nil {
		return nil, err
	}
	if cfg, err := g.configFlags.ToRESTConfig(); err == nil {
		g.warnLoweredTrust(cfg)
	}
	for _, name := range d.contexts {
		if cfg, err := discover.ContextConfig(g.configFlags, strings.TrimSpace(name)); err == nil {
			g.warnLoweredTrust(cfg)
		}
	}
	errOut := g.streams.ErrOut
	var (
		mu       sync.Mutex
		warnings []string
	)
	opts := discover.Options{
		RESTClientGetter: g.configFlags,
		Endpoints:        d.endpoints,
		Contexts:         d.contexts,
		NoLeaseServers:   !d.leases,
		ViaLB:            d.viaLB,
		LBSamples:        d.lbSamples,
		RequireLeases:    d.requireLeases,
		KnownServers:     d.knownServers,
		Manifests:        manifests,
		ControlPlane:     kcp,
		Timeout:          d.timeout,
		Concurrency:      d.concurrency,
		Warn: func(s string) {
			mu.Lock()
			defer mu.Unlock()
			warnings = append(warnings, s)
		},
	}
	if g.streams.ErrIsTerminal {
		opts.Progress = func(s string) { output.Fprintf(errOut, "[discovery] %s\n", s) }
	}
	snap, err := discover.Discover(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := requireReachable(snap, liveHint(d.instead)); err != nil {
		return nil, err
	}
	for _, w := range warnings {
		g.warn(w)
	}
	printLBNotes(g, snap)
	return snap, nil
}

// printLBNotes says, before any result, that a snapshot sampled through a load balancer has
// outcomes per server class, estimated from samples, and what is in doubt.
func printLBNotes(g *globalOptions, snap *snapshot.Snapshot) {
	lb := snap.Cluster.LB
	if lb == nil {
		return
	}
	g.warn(lb.Summary())
	for _, d := range lb.Doubts {
		g.warn(d)
	}
}
