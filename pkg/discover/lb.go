package discover

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// runLB takes the snapshot through one address, a load balancer in front of the apiservers
// (docs/snapshot.md, "Through a load balancer"): n samples, each a fresh connection; the
// answered ones grouped into server classes; the classes matched against the live identity
// leases; each class expanded into the apiservers it is taken to hold.
func (d *discoverer) runLB(ctx context.Context, cfg *rest.Config, base, kubeContext string, leases []identityLease, leasesRead bool, timeout time.Duration) (*snapshot.Snapshot, error) {
	n := d.opts.lbSamples()
	d.progress("sampling %d connections through %s", n, base)
	samples := d.takeSamples(ctx, cfg, base, kubeContext, n, timeout)
	defer closeSamples(samples)

	var answered []*lbSample
	failures := map[string]int{}
	for _, s := range samples {
		if s.failure != "" {
			failures[d.red.Clean(s.failure)]++
			continue
		}
		answered = append(answered, s)
	}
	failed := sortedFailures(failures)
	if len(answered) == 0 {
		return nil, fmt.Errorf("no sample through %s answered completely (%d samples; %s): check the address and the kubeconfig's credentials", base, n, failed[0].Error)
	}
	for _, f := range failed {
		d.warn("%d of %d samples through %s failed: %s", f.Count, n, base, f.Error)
	}

	// The cluster-wide lists are one etcd's: any apiserver gives them.
	cluster := d.readCluster(ctx, []*result{answered[0].r}, timeout)
	takenAt := d.opts.now().UTC()
	src := cluster.Sources()
	recorded := make([]snapshot.Server, len(answered))
	for i, s := range answered {
		recorded[i] = d.server(s.r, src, takenAt)
	}
	classes := groupClasses(answered, recorded)
	live, stale := liveLeasesAt(leases, d.opts.now())
	seen, doubts := identifyLeases(classes, live)
	conf, model := lbConfidence(len(live), seen, len(answered))
	for _, l := range stale {
		d.warn("identity lease %s was not renewed in the last %s: its apiserver is taken to be down and is not counted", leaseLabel(l), liveLeaseAge)
	}
	doubts = append(doubts, lbDoubts(len(classes), len(live), leasesRead, conf, failed, n)...)

	counts := memberCounts(classes, len(live), len(answered))
	perClass := make([][]snapshot.Server, len(classes))
	for i, c := range classes {
		perClass[i] = c.servers
		d.progress("%s: %d of %d samples, taken to hold %d apiserver(s): %s", c.name, len(c.samples), len(answered), counts[i], c.config)
		warned := map[string]bool{}
		for _, s := range c.samples {
			for _, w := range s.r.warnings {
				if !warned[w] {
					warned[w] = true
					d.warn("%s: %s", c.name, w)
				}
			}
		}
	}
	cluster.LB = &snapshot.LBSampling{Address: base, Samples: n, Answered: len(answered), Failed: failed,
		LeasesRead: leasesRead, Leases: len(live), LeasesSeen: seen, Classes: len(classes),
		Confidence: conf, Model: model, Doubts: doubts}

	snap := snapshot.New()
	snap.TakenAt = takenAt
	snap.Source = fmt.Sprintf("load balancer %s (%d samples)", base, n)
	if kubeContext != "" {
		snap.Source = fmt.Sprintf("context %q, load balancer %s (%d samples)", kubeContext, base, n)
	}
	snap.Cluster = cluster
	snap.Cluster.IdentityLeases = d.identityLeases(leasesRead)
	snap.Servers = expandClasses(classes, perClass, counts, len(answered))
	for i := range snap.Servers {
		for j, e := range snap.Servers[i].PeerProxy.Evidence {
			snap.Servers[i].PeerProxy.Evidence[j] = d.red.Clean(e)
		}
	}
	d.escapeText(snap)
	if err := snap.Validate(); err != nil {
		return nil, fmt.Errorf("internal error: the snapshot taken through %s is not valid (%v); please report it", base, err)
	}
	return snap, nil
}

// lbDoubts are the reasons the classes may not be the whole control plane.
func lbDoubts(classes, live int, leasesRead bool, conf *float64, failed []snapshot.LBFailure, n int) []string {
	var out []string
	switch {
	case !leasesRead:
		out = append(out, "the identity leases could not be listed: how many apiservers are behind the balancer is unknown")
	case live == 0:
		out = append(out, "no live identity lease: how many apiservers are behind the balancer is unknown")
	case classes > live:
		out = append(out, fmt.Sprintf("%d server classes but only %d live identity leases: the apiservers changed while sampling, or the balancer reaches servers of another control plane", classes, live))
	}
	if conf != nil && *conf < snapshot.LBConfidenceThreshold {
		out = append(out, fmt.Sprintf("confidence %s that no server class was missed is below %g: take more samples (--lb-samples)", snapshot.FormatConfidence(*conf), snapshot.LBConfidenceThreshold))
	}
	failedN := 0
	for _, f := range failed {
		failedN += f.Count
	}
	if failedN > 0 {
		out = append(out, fmt.Sprintf("%d of %d samples failed: an apiserver behind the balancer may be unreadable, and its class unknown", failedN, n))
	}
	return out
}

func sortedFailures(m map[string]int) []snapshot.LBFailure {
	var out []snapshot.LBFailure
	for e, c := range m {
		out = append(out, snapshot.LBFailure{Error: e, Count: c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Error < out[j].Error
	})
	return out
}

// noLeaseAddressDialled reports whether discovery should sample through the kubeconfig's
// server instead: it was to dial the identity leases' addresses alone (no --endpoint, no
// --contexts), there are several, and none of them could be connected to.
func noLeaseAddressDialled(results []*result) bool {
	if len(results) < 2 {
		return false
	}
	for _, r := range results {
		if r.t.foundBy != FoundByLease || r.client != nil {
			return false
		}
		var e *apiclient.Error
		if !errors.As(r.err, &e) {
			return false
		}
		switch e.Kind {
		case apiclient.KindRefused, apiclient.KindTimeout, apiclient.KindUnreachable:
		default:
			return false
		}
	}
	return true
}

func joinLeaseAddresses(results []*result) string {
	var addrs []string
	for _, r := range results {
		if r.t.lease != nil {
			addrs = append(addrs, r.t.lease.address)
		}
	}
	return strings.Join(addrs, ", ")
}
