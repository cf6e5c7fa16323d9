// Package profilerecord records a version profile (pkg/profile's profile files) from running
// kube-apiservers: what an apiserver of one version serves by itself with its defaults, what it
// serves with --runtime-config=api/all=true, and the default of the peer-proxy feature gate.
// `make profiles` (test/e2e/cmd/mkprofiles, which starts the apiservers itself) and `mvpctl
// profiles record` (which reads apiservers the user runs) both record through it.
package profilerecord

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mvpctl/mvpctl/pkg/discover"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Observation is one apiserver as read for a profile.
type Observation struct {
	snapshot.Server
	TakenAt time.Time
	// Gates are its feature gates as its /metrics reports them; nil when they could not be
	// read, and GatesErr says why.
	Gates    []discover.FeatureGate
	GatesErr string
	// Others are the apiservers of the control plane that were not read (their identity leases),
	// when the server read is the kubeconfig's, not one named by its address: through a load
	// balancer, a request may reach any of them.
	Others int
}

// Observe reads the one apiserver opts names (opts.Endpoints, or else the kubeconfig's server;
// the identity leases' addresses are not dialled) with pkg/discover, the code `mvpctl snapshot`
// runs, and its feature gates.
func Observe(ctx context.Context, opts discover.Options) (Observation, error) {
	var (
		mu       sync.Mutex
		gates    []discover.FeatureGate
		gatesErr string
	)
	opts.NoLeaseServers = true
	opts.FeatureGates = func(_ string, g []discover.FeatureGate, err string) {
		mu.Lock()
		defer mu.Unlock()
		gates, gatesErr = g, err
	}
	snap, err := discover.Discover(ctx, opts)
	if err != nil {
		return Observation{}, err
	}
	var read []*snapshot.Server
	for i := range snap.Servers {
		if snap.Servers[i].Endpoint != "" { // the others are identity leases, not contacted
			read = append(read, &snap.Servers[i])
		}
	}
	if len(read) != 1 {
		var names []string
		for _, s := range read {
			names = append(names, s.Endpoint)
		}
		return Observation{}, fmt.Errorf("%d apiservers read (%s): a profile is recorded from one", len(read), strings.Join(names, ", "))
	}
	srv := read[0]
	if !srv.Reachable {
		return Observation{}, errors.New(discover.FailureLine(srv))
	}
	obs := Observation{Server: *srv, TakenAt: snap.TakenAt, Gates: gates, GatesErr: gatesErr}
	if len(opts.Endpoints) == 0 {
		obs.Others = len(snap.Servers) - 1 // the kubeconfig's server: maybe a load balancer
	}
	return obs, nil
}

// Report is a recorded profile and what the recording could not vouch for.
type Report struct {
	// Profile is the profile file's content.
	Profile *snapshot.Snapshot
	// NotCaptured says what the profile lacks, each in a sentence.
	NotCaptured []string
	// NotDefault lists signs that a server was not started with its defaults: a profile must
	// describe the defaults. Each is also in the profile's source.
	NotDefault []string
	// Notes say what was left out on purpose.
	Notes []string
}

// Build makes the profile of def, a server started with its defaults, and all, one of the same
// version with --runtime-config=api/all=true (nil when there is none). source says how the
// servers were started and read; signs that they do not run with their defaults are added to it.
func Build(def Observation, all *Observation, source string) (Report, error) {
	var rep Report
	if def.PeerProxy.GateEnabled == nil {
		rep.NotCaptured = append(rep.NotCaptured, fmt.Sprintf("the default of %s: %s", mvp.FeatureGate, strings.Join(def.PeerProxy.Evidence, "; ")))
	}
	rep.check(def, "")
	if all == nil {
		rep.NotCaptured = append(rep.NotCaptured, "the full set (what the binary serves with --runtime-config=api/all=true): a server of this version with a --runtime-config cannot be simulated, nor its --runtime-config inferred; record it from an apiserver of the same version started with --runtime-config=api/all=true (mvpctl profiles record --api-all-endpoint URL)")
	} else {
		if all.Version != def.Version {
			return rep, fmt.Errorf("the api/all=true server is %s, the default one %s: a profile is one version", all.Version, def.Version)
		}
		rep.check(*all, profile.ServerAllAPIs+" server: ")
	}
	if len(rep.NotDefault) > 0 {
		source += "; NOT THE DEFAULTS: " + strings.Join(rep.NotDefault, "; ")
	}
	snap := snapshot.New()
	snap.TakenAt = def.TakenAt.UTC().Truncate(24 * time.Hour)
	snap.Source = source
	snap.Servers = []snapshot.Server{def.profileServer(profile.ServerDefault, &rep)}
	if all != nil {
		snap.Servers = append(snap.Servers, all.profileServer(profile.ServerAllAPIs, &rep))
	}
	if on := def.PeerProxy.GateEnabled; on != nil {
		snap.Servers[0].PeerProxy = snapshot.PeerProxy{GateEnabled: on,
			Evidence: []string{fmt.Sprintf("recorded: %s is %s by default (readyz of a server started without --feature-gates)", mvp.FeatureGate, onOff(*on))}}
	}
	if err := snap.Validate(); err != nil {
		return rep, err
	}
	data, err := snap.Marshal(true)
	if err != nil {
		return rep, err
	}
	if _, err := profile.Decode(data); err != nil {
		return rep, fmt.Errorf("the profile recorded does not load as one: %w", err)
	}
	rep.Profile = snap
	return rep, nil
}

// check adds what o shows of a server not started with its defaults (besides --runtime-config
// api/all=true on the api-all server), and what could not be checked.
func (rep *Report) check(o Observation, prefix string) {
	if prefix == "" {
		var pre []string
		for _, gv := range groupVersions(o.Resources) {
			if _, v, _ := strings.Cut(gv, "/"); mvp.PrereleaseAPIVersion(v) || mvp.PrereleaseAPIVersion(gv) {
				pre = append(pre, gv)
			}
		}
		if len(pre) > 0 {
			rep.NotDefault = append(rep.NotDefault, fmt.Sprintf("it serves alpha or beta APIs, which a default kube-apiserver does not (--runtime-config?): %s", strings.Join(pre, ", ")))
		}
		if on := o.PeerProxy.GateEnabled; on != nil {
			if v, err := snapshot.ParseVersion(o.Version); err == nil && *on != mvp.GateDefault(v) {
				rule := mvp.RuleGateDefaultOff
				if mvp.GateDefault(v) {
					rule = mvp.RuleGateDefaultOn
				}
				rep.NotDefault = append(rep.NotDefault, fmt.Sprintf("%s is %s, but %s by default in %s (--feature-gates?)", mvp.FeatureGate, onOff(*on), onOff(mvp.GateDefault(v)), rule.Versions()))
			}
		}
		if o.Others > 0 {
			rep.NotCaptured = append(rep.NotCaptured, fmt.Sprintf("whether %s is one apiserver: the control plane has %d more (identity leases); if it is a load balancer, name one apiserver's address (--endpoint)", o.Endpoint, o.Others))
		}
	}
	if o.Gates == nil {
		rep.NotCaptured = append(rep.NotCaptured, fmt.Sprintf("%swhether feature gates are set (--feature-gates): %s", prefix, o.GatesErr))
		return
	}
	var off []string
	for _, g := range o.Gates {
		if mvp.GateNotDefault(g.Stage, g.Enabled) {
			stage := g.Stage
			if stage == mvp.StageGA {
				stage = "GA"
			}
			off = append(off, fmt.Sprintf("%s=%t (%s)", g.Name, g.Enabled, stage))
		}
	}
	if len(off) > 0 {
		rep.NotDefault = append(rep.NotDefault, fmt.Sprintf("%sfeature gates not at their defaults (--feature-gates?): %s", prefix, strings.Join(off, ", ")))
	}
}

// profileServer keeps what the binary serves; what belongs to this one run (addresses,
// identity, leases, configuration evidence) and to the cluster (CRDs, aggregated APIs) is
// dropped, so recording a version again only changes its profile when it serves something else.
func (o Observation) profileServer(name string, rep *Report) snapshot.Server {
	var resources []snapshot.Resource
	dropped := map[string]int{}
	for _, r := range o.Resources {
		if r.Source == snapshot.SourceBuiltin || r.Source == "" {
			resources = append(resources, r)
		} else {
			dropped[r.Source]++
		}
	}
	for _, src := range []string{snapshot.SourceCRD, snapshot.SourceAggregated} {
		if n := dropped[src]; n > 0 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s server: left out %d resources of source %s (the cluster's, not the binary's)", name, n, src))
		}
	}
	return snapshot.Server{Name: name, Version: o.Version, EmulatedVersion: o.EmulatedVersion,
		Reachable: true, DiscoveryFormat: o.DiscoveryFormat, Resources: resources}
}

// groupVersions are the group/versions of builtin resources, sorted.
func groupVersions(rs []snapshot.Resource) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rs {
		if gv := r.GroupVersion(); (r.Source == snapshot.SourceBuiltin || r.Source == "") && !seen[gv] {
			seen[gv] = true
			out = append(out, gv)
		}
	}
	sort.Strings(out)
	return out
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
