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
		p, err := profile.Lookup(sv.Version)
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
		srv.Version = versionRun(sv.Version, p)
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
	full, _, removed, assumed := applyRemoved(srv, p, cfg)
	served, unknown := cfg.Apply(p.Resources, full)
	unknown = slices.DeleteFunc(unknown, func(gv string) bool { return slices.Contains(removed, gv) })
	if len(unknown) > 0 {
		return nil, "", fmt.Errorf("--runtime-config=%s: %s has no %s", cfg, p.Version, strings.Join(unknown, ", "))
	}
	return served, assumed, nil
}

// fromProfile is a running server named name serving what profile p serves.
func fromProfile(name string, p profile.Profile) snapshot.Server {
	id := snapshot.ServerID(name)
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

// stepDone is what a step did that the routing does not show: the notes for people (the
// configuration an upgraded server kept, and what of it the new version does not have), the
// configuration lost, and what the step assumed of its server ("" for nothing; a note says
// it too).
type stepDone struct {
	notes   []string
	losses  []ConfigLoss
	assumed string
}

// applyStep is Apply, plus what the step did that the routing does not show.
func applyStep(snap *snapshot.Snapshot, step Step) (*snapshot.Snapshot, stepDone, error) {
	var done stepDone
	if step.Action == ActionKeep {
		if snap.Find(step.Server) == nil {
			return nil, done, fmt.Errorf("step %q: no server %q (servers: %s)", step, step.Server, strings.Join(snap.ServerNames(), ", "))
		}
		if step.Patch != "" {
			done.notes = append(done.notes, PatchNote(snap.Find(step.Server).Version, step))
		}
		return snap, done, nil
	}
	next := clone(snap)
	srv := next.Find(step.Server)
	if srv == nil {
		return nil, done, fmt.Errorf("step %q: no server %q (servers: %s)", step, step.Server, strings.Join(snap.ServerNames(), ", "))
	}
	// Whether the default /apis is peer-aggregated was observed on the old process; the new
	// state decides it (mvp.AggregatesDiscovery), not the observation.
	srv.PeerProxy.PeerAggregatedDiscovery = nil
	leaseBefore := srv.IdentityLease
	switch step.Action {
	case ActionUpgrade:
		upgraded, err := upgradeServer(srv, step)
		if err != nil {
			return nil, done, fmt.Errorf("step %q: %w", step, err)
		}
		done = upgraded
	case ActionStart:
		start(srv)
	case ActionCrash:
		// Apply gives the steady state after a crash, the endpoint-resolution 503; Run also
		// shows the first EndpointLeaseTTL, the transport 503 (crashWindow).
		mvp.Crash(srv, "crashed (simulated SIGKILL)", mvp.CrashEndpointExpired)
	case ActionStop:
		mvp.Stop(srv, "stopped (simulated SIGTERM)")
	case ActionGateOff:
		// With the gate off, every --peer-* flag is refused, so the peer CA goes too.
		srv.PeerProxy.GateEnabled = snapshot.Ptr(false)
		srv.PeerProxy.FilterInstalled = snapshot.Ptr(false)
		srv.PeerProxy.AddEvidence(simulated(snapshot.TopicGate), "simulated: feature gate turned off")
		start(srv)
	case ActionPeerCAWrong, ActionPeerCARight:
		srv.PeerProxy.PeerCATrustsPeers = snapshot.Ptr(step.Action == ActionPeerCARight)
		srv.PeerProxy.AddEvidence(simulated(0), "simulated: "+step.String())
		start(srv)
	case ActionAdvertiseUnreachable, ActionAdvertiseReachable:
		srv.PeerProxy.AdvertiseAddressReachable = snapshot.Ptr(step.Action == ActionAdvertiseReachable)
		srv.PeerProxy.AddEvidence(simulated(0), "simulated: "+step.String())
		start(srv)
	case ActionDropPeerCA:
		srv.PeerProxy.FilterInstalled = snapshot.Ptr(false)
		srv.PeerProxy.AddEvidence(simulated(0), "simulated: --peer-ca-file removed")
		start(srv)
	}
	if mvp.RebuildsPeerCaches(leaseBefore, srv.IdentityLease) {
		mvp.RebuildPeerCaches(next)
	}
	// Served discovery documents describe the observed control plane, not a simulated one:
	// after any step they would be stale (every server's merged view depends on its peers).
	for i := range next.Servers {
		next.Servers[i].CoreAPI, next.Servers[i].APIs, next.Servers[i].DefaultAPIs = nil, nil, nil
	}
	recomputePeerAggregated(next)
	return next, done, nil
}

// simulated is the kind of evidence a simulated step adds about topics.
func simulated(topics snapshot.EvidenceTopics) snapshot.EvidenceKind {
	return snapshot.EvidenceKind{Basis: snapshot.EvidenceSimulated, Topics: topics}
}

// upgradeServer runs srv as the version step upgrades it to: the profile's resources (and the
// configuration the upgrade loses), the cluster's CRD and aggregated groups kept, the stated
// flags carried over, started.
func upgradeServer(srv *snapshot.Server, step Step) (stepDone, error) {
	p, err := profile.Lookup(step.To)
	if err != nil {
		return stepDone{}, err
	}
	served, done, err := upgradedResources(srv, p, step)
	if err != nil {
		return stepDone{}, err
	}
	if n := removedGateNote(srv, p.Version); n != "" {
		done.notes = append(done.notes, n)
	}
	// CRD and aggregated groups are the cluster's, not the binary's: they are kept.
	var kept []snapshot.Resource
	for _, r := range srv.Resources {
		if mvp.ClusterScoped(r) {
			kept = append(kept, r)
		}
	}
	srv.Version = versionRun(step.To, p)
	if sp, ok := StatedUpgrade(srv, p.Version); ok {
		// The new binary starts with the stated flags, and its own defaults for the rest.
		srv.PeerProxy.GateEnabled, srv.PeerProxy.FilterInstalled = snapshot.Ptr(sp.Gate), snapshot.Ptr(sp.Filter())
		srv.PeerProxy.AddEvidence(snapshot.EvidenceKind{Basis: snapshot.EvidenceStated, Topics: snapshot.TopicGate | snapshot.TopicFilter},
			fmt.Sprintf("%s (%s): upgraded to %s with the same flags: %s", mvp.StatedEvidence, sp.Source, p.Version.MinorString(), sp.Words(p.Version)))
	}
	srv.Resources = append(served, kept...)
	srv.DiscoveryFormat = snapshot.DiscoveryProfiled
	start(srv)
	return done, nil
}

// versionRun is the version a server upgraded to requested runs: the exact patch release when
// one was asked for (its minor's profile stands for it), else the profile's.
func versionRun(requested string, p profile.Profile) string {
	if v, err := snapshot.ParseVersion(requested); err == nil && strings.Count(strings.TrimPrefix(strings.TrimSpace(requested), "v"), ".") == 2 {
		return v.String()
	}
	return p.Version.String()
}

// ConfigLoss is a --runtime-config entry an upgraded server keeps that its new version has no
// group/version for.
type ConfigLoss struct {
	Server       string `json:"server"`
	GroupVersion string `json:"groupVersion"`
	Enabled      bool   `json:"enabled"`
	Version      string `json:"version"`
}

// defaultRuntimeConfig, as a step's runtime-config, means "no --runtime-config flag".
const defaultRuntimeConfig = "default"

// upgradedResources is what srv serves after its upgrade to profile p: p's default set with
// srv's --runtime-config applied, the same flags on a new binary. The configuration is the
// step's, else the one its installer states (snapshot.Server.Stated), else the one inferred
// from what srv serves now. A configuration that names a
// group/version p's binary does not have is reported in the notes.
func upgradedResources(srv *snapshot.Server, p profile.Profile, step Step) ([]snapshot.Resource, stepDone, error) {
	var cfg mvp.RuntimeConfig
	var notes []string
	source := "" // where cfg comes from, when stated
	switch {
	case step.RuntimeConfig != nil && *step.RuntimeConfig == defaultRuntimeConfig:
	case step.RuntimeConfig != nil:
		c, err := mvp.ParseRuntimeConfig(*step.RuntimeConfig)
		if err != nil {
			return nil, stepDone{}, err
		}
		cfg = c
	case srv.Stated != nil:
		sp, ok := StatedUpgrade(srv, p.Version)
		if !ok {
			return nil, stepDone{}, fmt.Errorf("%s: its stated flags (%s) cannot be read: %s", srv.Name, srv.Stated.Source, statedError(srv))
		}
		cfg, source = sp.RuntimeConfig, " (stated: "+sp.Source+")"
	default:
		obs := InferRuntimeConfig(srv)
		switch {
		case obs.Unknown != "":
			notes = append(notes, fmt.Sprintf("%s: its --runtime-config could not be inferred (%s): it is upgraded to %s's defaults", srv.Name, obs.Unknown, p.Version))
		case len(obs.Misfits) > 0:
			notes = append(notes, fmt.Sprintf("%s: what it serves fits no --runtime-config (%s); the closest, %q, is kept", srv.Name, strings.Join(obs.Misfits, "; "), obs.RuntimeConfig))
		}
		cfg = obs.Config
	}
	if cfg.IsDefault() {
		return append([]snapshot.Resource(nil), p.Resources...), stepDone{notes: notes}, nil
	}
	if p.Full == nil {
		return nil, stepDone{}, fmt.Errorf("the profile of %s does not record its full set: --runtime-config=%s cannot be applied (regenerate profiles with `make profiles`)", p.Version, cfg)
	}
	full, removedNotes, removed, assumed := applyRemoved(srv, p, cfg)
	served, unknown := cfg.Apply(p.Resources, full)
	notes = append(notes, fmt.Sprintf("%s keeps --runtime-config=%s%s", srv.Name, cfg, source))
	notes = append(notes, removedNotes...)
	var losses []ConfigLoss
	for _, gv := range unknown {
		if slices.Contains(removed, gv) {
			continue // the binary has it, and drops it at startup: said in removedNotes
		}
		notes = append(notes, fmt.Sprintf("%s: --runtime-config names %s, which %s does not have: %s", srv.Name, gv, p.Version, mvp.UnknownGroupVersionAtStartup))
		losses = append(losses, ConfigLoss{Server: srv.Name, GroupVersion: gv, Enabled: !slices.Contains(cfg.Disabled, gv), Version: p.Version.String()})
	}
	return served, stepDone{notes: notes, losses: losses, assumed: assumed}, nil
}

// start brings a server up as a new process.
func start(srv *snapshot.Server) { mvp.Start(srv, "_simulated") }

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

// PatchNote says that a keep step leaves a server at an older patch release, and how to
// rehearse the restart its patch upgrade is.
func PatchNote(version string, step Step) string {
	return fmt.Sprintf("%s runs %s: a patch upgrade to %s restarts it, which this plan does not; --to %s rehearses it",
		step.Server, version, step.Patch, strings.TrimPrefix(step.Patch, "v"))
}
