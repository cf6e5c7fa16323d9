package simulate

import (
	gojson "github.com/goccy/go-json"

	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// FromProfiles builds a control plane of servers from version profiles, each with its
// version's default set and the peer-proxy setup it is given (ServerVersion.Proxy): by default
// the binary's own defaults, which on a plain install means no proxy filter (no
// --peer-ca-file) — never an optimistic "configured" nobody stated. The assumption is
// recorded as evidence and reported first by Run.
func FromProfiles(servers []ServerVersion, at time.Time) (*snapshot.Snapshot, error) {
	snap := snapshot.New()
	snap.TakenAt = at
	var sources []string
	for _, sv := range servers {
		p, runs, err := lookupTarget(sv.Version)
		if err != nil {
			return nil, fmt.Errorf("server %s: %w", sv.Name, err)
		}
		setup, err := mvp.ParseProxySetup(sv.Proxy)
		if err != nil {
			return nil, fmt.Errorf("server %s: %w", sv.Name, err)
		}
		srv := fromProfile(sv.Name, p)
		assumed := ""
		if sv.RuntimeConfig != "" {
			if srv.Resources, assumed, err = profileWithRuntimeConfig(&srv, p, sv.RuntimeConfig); err != nil {
				return nil, fmt.Errorf("server %s: %w", sv.Name, err)
			}
		}
		srv.Version = runs.String()
		srv.PeerProxy = setup.PeerProxy(p.Version)
		// What the release's removals assumed is said with the rest of the start's evidence.
		if assumed != "" {
			srv.PeerProxy.AddEvidence(snapshot.EvidenceKind{Basis: snapshot.EvidenceAssumed}, assumed)
		}
		srv.FoundBy = "profile"
		snap.Servers = append(snap.Servers, srv)
		sources = append(sources, fmt.Sprintf("%s=%s", sv.Name, p.Version))
	}
	snap.Source = "profiles: " + strings.Join(sources, ", ")
	if err := snap.Validate(); err != nil {
		return nil, err
	}
	recomputePeerAggregated(snap)
	return snap, nil
}

// profileWithRuntimeConfig is what a server of profile p serves with --runtime-config=value,
// and what its release's removals assumed of it (applyRemoved; "" for nothing). A
// group/version the binary does not have at all is an error: the start is what the user says
// runs today.
func profileWithRuntimeConfig(srv *snapshot.Server, p profile.Profile, value string) ([]snapshot.Resource, string, error) {
	cfg, err := mvp.ParseRuntimeConfig(value)
	if err != nil {
		return nil, "", err
	}
	if p.Full == nil {
		return nil, "", fmt.Errorf("the profile of %s does not record its full set: --runtime-config=%s cannot be applied", p.Version, cfg)
	}
	full, _, removed, assumedOf := applyRemoved(srv, p, cfg)
	served, unknown := cfg.Apply(p.Resources, full)
	unknown = slices.DeleteFunc(unknown, func(gv string) bool { return slices.Contains(removed, gv) })
	if len(unknown) > 0 {
		return nil, "", fmt.Errorf("--runtime-config=%s: %s has no %s", cfg, p.Version, strings.Join(unknown, ", "))
	}
	if assumedOf == nil {
		return served, "", nil
	}
	return served, assumedOf.words(), nil
}

// fromProfile is a running server named name serving what profile p serves.
func fromProfile(name string, p profile.Profile) snapshot.Server {
	id := mvp.ServerID(name)
	return snapshot.Server{
		Name: name, ID: id, Hostname: name,
		IdentityLease:   &snapshot.Lease{Name: id, HolderIdentity: id + "_simulated"},
		Version:         p.Version.String(),
		Reachable:       true,
		DiscoveryFormat: snapshot.DiscoveryProfiled,
		Resources:       append([]snapshot.Resource(nil), p.Resources...),
	}
}

// Apply returns a copy of snap with step applied; snap is not changed. The consequences follow
// docs/behaviour.md: what matters for routing is reachability, the identity lease (a peer
// exists), the peer endpoint lease (its address resolves) and the configuration.
func Apply(snap *snapshot.Snapshot, step Step) (*snapshot.Snapshot, error) {
	next, _, err := applyStep(snap, step)
	return next, err
}

// recomputePeerAggregated rebuilds each server's peer-aggregated /apis as the set of GVRs the
// merge would list (docs/behaviour.md §7): its own plus every learned peer's (mvp.Learns), without the core group and
// without CRD/APIService GVs taken from peers. Only the set matters for routing: a 1.33/1.34
// peer routes on it (docs/behaviour.md §4.2).
func recomputePeerAggregated(snap *snapshot.Snapshot) {
	excluded := mvp.ExcludedGroupVersions(snap)
	for i := range snap.Servers {
		s := &snap.Servers[i]
		s.PeerAggregated = nil
		if on, _ := mvp.AggregatesDiscovery(s); !s.Reachable || !on {
			continue
		}
		seen := map[snapshot.GVR]bool{}
		var merged []snapshot.Resource
		add := func(r snapshot.Resource) {
			if r.Group != "" && !seen[r.GVR()] {
				seen[r.GVR()] = true
				merged = append(merged, r)
			}
		}
		for _, r := range s.Resources {
			add(r)
		}
		for j := range snap.Servers {
			p := &snap.Servers[j]
			if j == i || mvp.Learns(s, p).Excluded() {
				continue
			}
			for _, r := range p.Resources {
				if _, ex := excluded[r.GroupVersion()]; !ex {
					add(r)
				}
			}
		}
		if len(merged) > 0 {
			s.PeerAggregated = merged
		}
	}
}

// clone deep-copies a snapshot through JSON: steps must never share slices with the step
// before them. (Through JSON, so a copy is what a file would hold: empty lists dropped as
// omitempty drops them. goccy/go-json, with encoding/json's behaviour, is the snapshot loader's
// decoder too; encoding/json made this a sixth of a preflight's time.)
func clone(s *snapshot.Snapshot) *snapshot.Snapshot {
	b, err := gojson.Marshal(s)
	if err != nil {
		panic(err) // a Snapshot is plain data; marshalling cannot fail
	}
	var out snapshot.Snapshot
	if err := gojson.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	// The kinds of the evidence lines are not part of the file format: carried over here.
	for i := range out.Servers {
		_, out.Servers[i].PeerProxy.EvidenceKinds = s.Servers[i].PeerProxy.CopyEvidence()
	}
	return &out
}
