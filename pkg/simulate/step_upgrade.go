package simulate

import (
	"fmt"
	"slices"

	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// upgradeStep is a graceful stop, then a start at version To: the profile's resources (and
// the configuration the upgrade loses), the cluster's CRD and aggregated groups kept, the
// stated flags carried over, started. The unit in the registry has no target: planning the
// step (planStep, readTarget) reads it once.
type upgradeStep struct{ to *upgradeTarget }

// upgradeTarget is what an upgrade step asks for, read once when the step is planned: the
// profile of the version it goes to, the version the server then runs, and the
// --runtime-config the step gives (nil: none). err says why there is no profile, askedErr
// why the --runtime-config cannot be read; they are returned when the step runs, as a step
// before it may fail first.
type upgradeTarget struct {
	profile       profile.Profile
	runs          snapshot.Version
	asked         *runtimeChoice
	err, askedErr error
}

// readTarget reads what an upgrade step asks for: the profile of its version, the
// --runtime-config it gives (none; "default": the binary's defaults; or a configuration), and
// the version the server then runs.
func readTarget(step Step) *upgradeTarget {
	p, runs, err := lookupTarget(step.To)
	if err != nil {
		return &upgradeTarget{err: err}
	}
	t := &upgradeTarget{profile: p, runs: runs}
	if rc := step.RuntimeConfig; rc != nil {
		asked := rc.asked
		t.asked, t.askedErr = &asked, rc.err
	}
	return t
}

// targetProfile is the profile an upgrade step st starts its server on; ok is false for another
// kind of step, or a version without a profile.
func targetProfile(st plannedStep) (p profile.Profile, ok bool) {
	if u, is := st.unit.(upgradeStep); is && u.to != nil && u.to.err == nil {
		return u.to.profile, true
	}
	return p, false
}

func (u upgradeStep) Execute(srv *snapshot.Server, _ Step) (stepDone, error) {
	t := u.to
	if t.err != nil {
		return stepDone{}, t.err
	}
	if t.askedErr != nil {
		return stepDone{}, t.askedErr
	}
	p := t.profile
	served := servedOf(srv)
	cfg, err := resolveUpgradeConfig(srv.Name, t.asked, statedOn(srv, p.Version), served)
	if err != nil {
		return stepDone{}, err
	}
	resources, done, err := upgradedResources(srv, p, cfg)
	if err != nil {
		return stepDone{}, err
	}
	if n, ok := removedGateNote(srv, p.Version); ok {
		done.notes = append(done.notes, n)
	}
	srv.Version = t.runs.String()
	if cfg.Proxy == sourceStated {
		// The new binary starts with the stated flags, and its own defaults for the rest.
		sp := cfg.stated
		said := statedUpgradeEvidence(sp, p.Version)
		srv.PeerProxy.GateEnabled, srv.PeerProxy.FilterInstalled = snapshot.Ptr(sp.Gate), snapshot.Ptr(sp.Filter())
		srv.PeerProxy.AddEvidence(snapshot.EvidenceKind{Basis: snapshot.EvidenceStated, Topics: snapshot.TopicGate | snapshot.TopicFilter}, said)
	}
	// CRD and aggregated groups are the cluster's, not the binary's: they are kept.
	srv.Resources = append(resources, served.cluster...)
	srv.DiscoveryFormat = snapshot.DiscoveryProfiled
	startAt(srv, t.runs)
	return done, nil
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
	notes = append(notes, removedNotes...)
	var losses []ConfigLoss
	for _, gv := range unknown {
		if slices.Contains(removed, gv) {
			continue // the binary has it, and drops it at startup: said in removedNotes
		}
		notes = append(notes, unknownGroupVersion{Server: srv.Name, GroupVersion: gv, Version: p.Version})
		losses = append(losses, ConfigLoss{Server: srv.Name, GroupVersion: gv, Enabled: !slices.Contains(rc.Disabled, gv), Version: p.Version.String()})
	}
	done := stepDone{notes: notes, losses: losses}
	if assumed != nil {
		done.assumed = *assumed
	}
	return served, done, nil
}

// lookupTarget is the profile of version, and the version a server started on it runs: the
// exact patch release when one is asked for (its minor's profile stands for it), else the
// profile's.
func lookupTarget(version string) (p profile.Profile, runs snapshot.Version, err error) {
	if p, err = profile.Lookup(version); err != nil {
		return p, runs, err
	}
	if v, patch := snapshot.ParsePatch(version); patch {
		return p, v, nil
	}
	return p, p.Version, nil
}

// ConfigLoss is a --runtime-config entry an upgraded server keeps that its new version has no
// group/version for.
type ConfigLoss struct {
	Server       string `json:"server"`
	GroupVersion string `json:"groupVersion"`
	Enabled      bool   `json:"enabled"`
	Version      string `json:"version"`
}
