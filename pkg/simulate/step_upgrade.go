package simulate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// upgradeStep is a graceful stop, then a start at version To: the profile's resources (and
// the configuration the upgrade loses), the cluster's CRD and aggregated groups kept, the
// stated flags carried over, started.
type upgradeStep struct{}

func (upgradeStep) Execute(srv *snapshot.Server, step Step) (stepDone, error) {
	p, err := profile.Lookup(step.To)
	if err != nil {
		return stepDone{}, err
	}
	cfg, err := resolveUpgradeConfig(srv, p, step)
	if err != nil {
		return stepDone{}, err
	}
	served, done, err := upgradedResources(srv, p, cfg)
	if err != nil {
		return stepDone{}, err
	}
	if n := removedGateNote(srv, p.Version); n != "" {
		done.notes = append(done.notes, noteText(n))
	}
	// CRD and aggregated groups are the cluster's, not the binary's: they are kept.
	var kept []snapshot.Resource
	for _, r := range srv.Resources {
		if clusterScoped(r) {
			kept = append(kept, r)
		}
	}
	srv.Version = versionRun(step.To, p)
	if cfg.Proxy == sourceStated {
		// The new binary starts with the stated flags, and its own defaults for the rest.
		sp := cfg.stated
		srv.PeerProxy.GateEnabled, srv.PeerProxy.FilterInstalled = snapshot.Ptr(sp.Gate), snapshot.Ptr(sp.Filter())
		srv.PeerProxy.AddEvidence(snapshot.EvidenceKind{Basis: snapshot.EvidenceStated, Topics: snapshot.TopicGate | snapshot.TopicFilter},
			statedUpgradeEvidence(sp, p.Version))
	}
	srv.Resources = append(served, kept...)
	srv.DiscoveryFormat = snapshot.DiscoveryProfiled
	start(srv)
	return done, nil
}

// configSource is where a part of an upgraded server's configuration comes from.
type configSource int

const (
	// sourceDefault: the new binary's own default (no flag).
	sourceDefault configSource = iota
	// sourceStep: the step gives it (upgrade:a=1.37,runtime-config=...).
	sourceStep
	// sourceStated: the installer states it (snapshot.Server.Stated), read once.
	sourceStated
	// sourceObserved: inferred from what the server serves before the upgrade.
	sourceObserved
)

// upgradeConfig is an upgraded server's runtime configuration, resolved once: its
// --runtime-config and its peer-proxy flags, each with where it comes from.
type upgradeConfig struct {
	RuntimeConfig mvp.RuntimeConfig
	// Runtime is where RuntimeConfig comes from: the step, the stated flags, what the server
	// serves (Observed), or the default (none of them, or "default" in the step).
	Runtime configSource
	// Proxy is where the gate and the filter come from: stated (stated), or the server's own.
	Proxy configSource
	// stated are the stated flags on the new version, when Proxy is sourceStated.
	stated mvp.StatedProxy
	// Observed is the inference, when Runtime is sourceObserved or the inference failed.
	Observed *ObservedConfig
}

// defaultRuntimeConfig, as a step's runtime-config, means "no --runtime-config flag".
const defaultRuntimeConfig = "default"

// resolveUpgradeConfig picks srv's configuration on profile p: the --runtime-config is the
// step's, else the one its installer states, else the one inferred from what srv serves now;
// the gate and the filter are the stated ones when any are stated.
func resolveUpgradeConfig(srv *snapshot.Server, p profile.Profile, step Step) (upgradeConfig, error) {
	var cfg upgradeConfig
	sp, stated := StatedUpgrade(srv, p.Version)
	if stated {
		cfg.Proxy, cfg.stated = sourceStated, sp
	}
	switch {
	case step.RuntimeConfig != nil && *step.RuntimeConfig == defaultRuntimeConfig:
	case step.RuntimeConfig != nil:
		c, err := mvp.ParseRuntimeConfig(*step.RuntimeConfig)
		if err != nil {
			return cfg, err
		}
		cfg.RuntimeConfig, cfg.Runtime = c, sourceStep
	case srv.Stated != nil:
		if !stated {
			return cfg, fmt.Errorf("%s: its stated flags (%s) cannot be read: %s", srv.Name, srv.Stated.Source, statedError(srv))
		}
		cfg.RuntimeConfig, cfg.Runtime = sp.RuntimeConfig, sourceStated
	default:
		obs := InferRuntimeConfig(srv)
		cfg.Observed = &obs
		cfg.RuntimeConfig = obs.Config
		if obs.Unknown == "" {
			cfg.Runtime = sourceObserved
		}
	}
	return cfg, nil
}

// upgradedResources is what srv serves after its upgrade to profile p with cfg: p's default
// set with the --runtime-config applied, the same flags on a new binary. A configuration that
// names a group/version p's binary does not have is reported in the notes.
func upgradedResources(srv *snapshot.Server, p profile.Profile, cfg upgradeConfig) ([]snapshot.Resource, stepDone, error) {
	var notes []stepNote
	if obs := cfg.Observed; obs != nil {
		switch {
		case obs.Unknown != "":
			notes = append(notes, configNotInferred{Server: srv.Name, Why: obs.Unknown, Version: p.Version})
		case len(obs.Misfits) > 0:
			notes = append(notes, configMisfits{Server: srv.Name, Misfits: obs.Misfits, Closest: obs.RuntimeConfig})
		}
	}
	rc := cfg.RuntimeConfig
	if rc.IsDefault() {
		return append([]snapshot.Resource(nil), p.Resources...), stepDone{notes: notes}, nil
	}
	if p.Full == nil {
		return nil, stepDone{}, fmt.Errorf("the profile of %s does not record its full set: --runtime-config=%s cannot be applied (regenerate profiles with `make profiles`)", p.Version, rc)
	}
	full, removedNotes, removed, assumed := applyRemoved(srv, p, rc)
	served, unknown := rc.Apply(p.Resources, full)
	keeps := configKept{Server: srv.Name, Config: rc}
	if cfg.Runtime == sourceStated {
		keeps.StatedSource = cfg.stated.Source
	}
	notes = append(notes, keeps)
	for _, n := range removedNotes {
		notes = append(notes, noteText(n))
	}
	var losses []ConfigLoss
	for _, gv := range unknown {
		if slices.Contains(removed, gv) {
			continue // the binary has it, and drops it at startup: said in removedNotes
		}
		notes = append(notes, unknownGroupVersion{Server: srv.Name, GroupVersion: gv, Version: p.Version})
		losses = append(losses, ConfigLoss{Server: srv.Name, GroupVersion: gv, Enabled: !slices.Contains(rc.Disabled, gv), Version: p.Version.String()})
	}
	return served, stepDone{notes: notes, losses: losses, assumed: assumed}, nil
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
