package discover

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/internal/textsafe"
	"github.com/mvpctl/mvpctl/pkg/redact"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Discover takes a snapshot of the control plane opts point at. A server that cannot be read
// is recorded with Reachable=false and its Error; the snapshot is then partial
// (Snapshot.Partial) but still returned. Discover returns an error only when there is nothing
// to snapshot: no usable kubeconfig, a bad --endpoint, an unknown context, no server at all.
func Discover(ctx context.Context, opts Options) (*snapshot.Snapshot, error) {
	d := &discoverer{opts: opts}
	snap, err := d.run(ctx)
	if err == nil {
		err = d.stateInstaller(snap)
	}
	if err != nil {
		clean := errors.New(d.red.Clean(err.Error()))
		if errors.Is(err, ErrLeasesNotListed) {
			return nil, &leasesNotListedError{clean} // still recognisable once cleaned
		}
		return nil, clean
	}
	return snap, nil
}

// leasesNotListedError is ErrLeasesNotListed with its cleaned text.
type leasesNotListedError struct{ error }

func (e *leasesNotListedError) Is(target error) bool { return target == ErrLeasesNotListed }

type discoverer struct {
	opts Options
	red  redact.Redactor
	mu   sync.Mutex // serialises the callbacks
	// leaseErr is why the identity leases could not be listed.
	leaseErr string
	// kubeadmStated are the flags kube-system/kubeadm-config states (nil when not read).
	kubeadmStated *snapshot.StatedFlags
	// deadlines holds, by server URL, the deadline its first request (the lease list) set:
	// one --timeout is one deadline for the whole exchange with a server, so a server that
	// trickles the lease list's answer is not given a fresh --timeout for its /version.
	deadlines map[string]time.Time
}

func (d *discoverer) progress(format string, args ...any) {
	if d.opts.Progress == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.opts.Progress(textsafe.Visible(d.red.Clean(fmt.Sprintf(format, args...))))
}

func (d *discoverer) warn(format string, args ...any) {
	if d.opts.Warn == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.opts.Warn(textsafe.Visible(d.red.Clean(fmt.Sprintf(format, args...))))
}

func (d *discoverer) run(ctx context.Context) (*snapshot.Snapshot, error) {
	// The kubeconfig first, so that its credentials are known to the redactor before any
	// error can quote them.
	baseCfg, baseErr := d.opts.baseConfig()
	d.red.Add(baseCfg)
	endpoints, err := d.endpoints()
	if err != nil {
		return nil, err
	}
	contexts, err := d.contexts()
	if err != nil {
		return nil, err
	}
	base, primaryBase, primaryContext, err := d.primary(baseCfg, baseErr, contexts)
	if err != nil {
		return nil, err
	}
	timeout := d.opts.timeout()
	if d.opts.ViaLB {
		if len(endpoints) > 0 || len(contexts) > 0 {
			return nil, errors.New("--via-lb samples the kubeconfig's server: it cannot be used with --endpoint or --contexts, which name apiservers one by one")
		}
		if n := d.opts.LBSamples; n != 0 && (n < snapshot.LBMinSamples || n > snapshot.LBMaxSamples) {
			return nil, fmt.Errorf("--lb-samples %d: want %d to %d", n, snapshot.LBMinSamples, snapshot.LBMaxSamples)
		}
	}

	leases, leasesRead, timedOut := d.listLeases(ctx, base, primaryBase, endpoints, contexts)
	if !leasesRead && d.opts.RequireLeases {
		return nil, fmt.Errorf("%w: %s", ErrLeasesNotListed, d.leaseErr)
	}
	plan := planTargets(&d.opts, leases, base, primaryBase, primaryContext, endpoints, contexts)
	for _, t := range plan.targets {
		// A server that did not answer the lease list within the timeout is not waited for a
		// second time: a hung apiserver costs one --timeout, not one per request.
		if err := timedOut[t.base]; err != nil && t.cfg == base {
			t.dialErr = err
		}
	}
	for _, w := range plan.warnings {
		d.warn("%s", w)
	}
	if len(plan.targets) == 0 {
		return nil, errors.New("no apiserver to read: the kubeconfig names no server and no --endpoint or --contexts was given")
	}
	if d.opts.ViaLB {
		return d.runLB(ctx, base, primaryBase, primaryContext, leases, leasesRead, timeout)
	}
	d.progress("%s", foundLine(plan.targets, leasesRead))

	results := d.fetchAll(ctx, plan.targets, timeout)
	if primaryBase != "" && noLeaseAddressDialled(results) {
		d.warn("none of the %d identity leases' peer-advertise addresses (%s) accepts a connection from here: sampling the apiservers through the kubeconfig's server %s instead, as --via-lb does (outcomes become per server class)", len(results), joinLeaseAddresses(results), primaryBase)
		return d.runLB(ctx, base, primaryBase, primaryContext, leases, leasesRead, timeout)
	}
	results = d.matchLeases(results, leases, plan.leaseByAddr)
	for _, r := range results {
		for _, w := range r.warnings {
			d.warn("server %s: %s", serverName(r), w)
		}
	}

	cluster := d.readCluster(ctx, results, timeout)

	snap := snapshot.New()
	snap.TakenAt = d.opts.now().UTC()
	snap.Source = d.source(primaryBase, endpoints, contexts)
	snap.Cluster = cluster
	snap.Cluster.IdentityLeases = d.identityLeases(leasesRead)
	snap.Servers = d.assemble(results, cluster.Sources(), snap.TakenAt)
	d.escapeText(snap)
	if err := snap.Validate(); err != nil {
		return nil, fmt.Errorf("internal error: the snapshot taken is not valid (%v); please report it", err)
	}
	return snap, nil
}

// endpoints checks the --endpoint URLs.
func (d *discoverer) endpoints() ([]string, error) {
	var out []string
	for _, e := range d.opts.Endpoints {
		b, err := apiclient.NormalizeBase(e)
		if err != nil {
			// Never echo a URL that holds credentials.
			shown := e
			if errors.Is(err, apiclient.ErrURLCredentials) {
				shown = "(URL with credentials)"
			}
			return nil, fmt.Errorf("--endpoint %s: %w", shown, err)
		}
		out = append(out, b)
	}
	return out, nil
}

// contexts resolves the --contexts entries.
func (d *discoverer) contexts() ([]namedConfig, error) {
	var out []namedConfig
	for _, name := range d.opts.Contexts {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		cfg, err := d.opts.contextConfig(name)
		if err != nil {
			return nil, fmt.Errorf("--contexts: %w", err)
		}
		d.red.Add(cfg)
		b, err := apiclient.NormalizeBase(cfg.Host)
		if err != nil {
			return nil, fmt.Errorf("--contexts: context %q: server: %w", name, err)
		}
		out = append(out, namedConfig{name: name, cfg: cfg, base: b})
	}
	return out, nil
}

// primary is the kubeconfig's config and server: credentials for lease-found servers, and the
// server through which the leases are listed. With --contexts and no usable current context,
// the first context serves. The last result is the name of the kubeconfig context whose
// credentials the config holds .
func (d *discoverer) primary(cfg *rest.Config, cfgErr error, contexts []namedConfig) (*rest.Config, string, string, error) {
	if cfgErr != nil {
		if len(contexts) > 0 {
			return contexts[0].cfg, contexts[0].base, contexts[0].name, nil
		}
		return nil, "", "", cfgErr
	}
	b, err := apiclient.NormalizeBase(cfg.Host)
	if err != nil {
		if len(contexts) > 0 {
			return contexts[0].cfg, contexts[0].base, contexts[0].name, nil
		}
		shown := fmt.Sprintf("%q", cfg.Host)
		if strings.Contains(cfg.Host, "@") {
			shown = "(URL with credentials)"
		}
		return nil, "", "", fmt.Errorf("kubeconfig server %s: %w", shown, err)
	}
	return cfg, b, d.opts.currentContext(), nil
}

// listLeases reads the identity leases through the kubeconfig's server, or, if that fails,
// through the first server the user named. Failure is a warning: servers can still be read,
// they just have no identity.
//
// timedOut holds, by server URL, the lease lists that got no answer within the timeout.
func (d *discoverer) listLeases(ctx context.Context, base *rest.Config, primaryBase string, endpoints []string, contexts []namedConfig) (leases []identityLease, read bool, timedOut map[string]error) {
	timedOut = map[string]error{}
	type via struct {
		cfg  *rest.Config
		base string
	}
	vias := []via{{base, primaryBase}}
	if len(contexts) > 0 && contexts[0].base != primaryBase {
		vias = append(vias, via{contexts[0].cfg, contexts[0].base})
	} else if len(endpoints) > 0 && endpoints[0] != primaryBase {
		vias = append(vias, via{base, endpoints[0]})
	}
	var (
		msgs       []string
		primaryErr error
	)
	for _, v := range vias {
		c, err := newServerClient(v.cfg, v.base, "", d.opts.timeout(), &d.red)
		if err == nil {
			lctx, cancel := context.WithTimeout(ctx, d.opts.timeout())
			if dl, ok := lctx.Deadline(); ok && d.deadlines[v.base].IsZero() {
				if d.deadlines == nil {
					d.deadlines = map[string]time.Time{}
				}
				d.deadlines[v.base] = dl
			}
			var leases []identityLease
			leases, err = listIdentityLeases(lctx, c)
			cancel()
			if err == nil {
				return leases, true, timedOut
			}
			var e *apiclient.Error
			if errors.As(err, &e) && e.Kind == apiclient.KindTimeout && v.cfg == base {
				timedOut[v.base] = err
			}
		}
		msgs = append(msgs, err.Error())
		if v == vias[0] {
			primaryErr = err
		}
	}
	if notAnswering(primaryErr) {
		if leases, through, ok := d.listLeasesThroughKnown(ctx, base, vias[0].base, func(b string) bool {
			return slices.ContainsFunc(vias, func(v via) bool { return v.base == b })
		}); ok {
			d.warn("the kubeconfig's server %s does not answer the identity-lease list: listed through %s, an apiserver known from the last read (the kubeconfig's server is tried first at every read)", primaryBase, through)
			return leases, true, timedOut
		}
	}
	d.leaseErr = strings.Join(msgs, "; ")
	if d.opts.RequireLeases {
		return nil, false, timedOut // the caller fails: no warning about a fallback it will not take
	}
	d.warn("cannot list the identity leases in kube-system (%s): servers found otherwise get no identity, and unreachable ones cannot be known", d.leaseErr)
	return nil, false, timedOut
}

// identityLeases is the snapshot's record of the lease list: listed, or why not (the
// credentials cleaned out, one line).
func (d *discoverer) identityLeases(read bool) *snapshot.IdentityLeases {
	if read {
		return &snapshot.IdentityLeases{Listed: true}
	}
	return &snapshot.IdentityLeases{Error: textsafe.Visible(d.red.Clean(d.leaseErr))}
}

// notAnswering reports whether err is a server that did not answer (down, restarting,
// unreachable, silent), not one that answered with a refusal another server would repeat.
func notAnswering(err error) bool {
	var e *apiclient.Error
	return errors.As(err, &e) && (e.Kind == apiclient.KindRefused || e.Kind == apiclient.KindUnreachable || e.Kind == apiclient.KindTimeout)
}

// listLeasesThroughKnown lists the identity leases through the first of Options.KnownServers
// (other than those tried) that answers, with cfg's credentials, each tried under the TLS
// server names its own address, the kubeconfig's server's and kubernetes.default.svc (the
// name every apiserver's serving certificate holds).
func (d *discoverer) listLeasesThroughKnown(ctx context.Context, cfg *rest.Config, primaryBase string, tried func(string) bool) ([]identityLease, string, bool) {
	for _, known := range d.opts.KnownServers {
		b, err := apiclient.NormalizeBase(known)
		if err != nil || tried(b) {
			continue
		}
		names := apiclient.ServerNames(cfg, b, apiclient.HostOnly(primaryBase))
		if len(names) == 0 {
			names = []string{""}
		}
		for _, name := range names {
			c, err := newServerClient(cfg, b, name, d.opts.timeout(), &d.red)
			if err != nil {
				break
			}
			lctx, cancel := context.WithTimeout(ctx, d.opts.timeout())
			leases, err := listIdentityLeases(lctx, c)
			cancel()
			if err == nil {
				return leases, b, true
			}
			if !apiclient.IsHostnameMismatch(err) {
				break
			}
		}
	}
	return nil, "", false
}

// fetchAll reads every target, at most Concurrency at a time.
func (d *discoverer) fetchAll(ctx context.Context, targets []*target, timeout time.Duration) []*result {
	results := make([]*result, len(targets))
	sem := make(chan struct{}, d.opts.concurrency())
	var wg sync.WaitGroup
	var done int
	var doneMu sync.Mutex
	for i, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			fctx := ctx
			if dl, ok := d.deadlines[t.base]; ok {
				var cancel context.CancelFunc
				fctx, cancel = context.WithDeadline(ctx, dl)
				defer cancel()
			}
			results[i] = fetchServer(fctx, t, timeout, &d.red)
			if r := results[i]; d.opts.FeatureGates != nil && r.client != nil && r.err == nil {
				readFeatureGates(ctx, r, timeout, d.opts.FeatureGates)
			}
			doneMu.Lock()
			done++
			n := done
			doneMu.Unlock()
			d.progress("fetched %d/%d", n, len(targets))
		}()
	}
	wg.Wait()
	return results
}

// escapeText records the control characters (and a server name's spaces) a cluster or a
// kubeconfig stated as visible text, saying where: odd text is data, not a reason to stop.
func (d *discoverer) escapeText(snap *snapshot.Snapshot) {
	fields := snap.EscapeText()
	if len(fields) == 0 {
		return
	}
	const shown = 5
	more := ""
	if len(fields) > shown {
		more = fmt.Sprintf(" and %d more", len(fields)-shown)
		fields = fields[:shown]
	}
	d.warn("text read from the cluster or the kubeconfig holds control characters or, in a server name, spaces or non-ASCII characters: recorded as escapes (\\x1b) in %s%s", strings.Join(fields, ", "), more)
}
