package preflight

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mvpctl/mvpctl/pkg/peerdiscovery"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Options is one run of the gate: the upgrade to rehearse, the traffic to replay through it,
// the client evidence beyond the start's own request counters, the accepted risks, the
// filter and the threshold.
type Options struct {
	Start  *snapshot.Snapshot
	Steps  []simulate.Step
	Target string
	// Traffic is optional: one reader, or several replayed one after another (audit logs of
	// several servers, joined by audit ID).
	Traffic       []*replay.Reader
	TrafficSource string
	TrafficFormat string
	// Accept are the rules of accepted risks, in precedence order (the first that matches a
	// finding is the one reported).
	Accept []AcceptRule
	// Filter narrows the findings to the GVRs it selects (--resource, --group; see Narrow).
	Filter snapshot.GVRFilter
	// Replayed is the traffic of an earlier run on the same start and steps (its
	// Report.Traffic), used instead of Traffic: a second run with more client
	// evidence does not replay the logs again.
	Replayed *replay.Report
	// Evidence is client evidence beyond the start's own request counters (which Run reads
	// from Start): optional.
	Evidence *replay.ClientEvidence
	// FailOn is the threshold the verdict is judged at (FailOnWarning when empty).
	FailOn FailOn
	// EvidenceWindow is how far back the evidence must look to show that no client uses a
	// GVR (replay.DefaultEvidenceWindow when zero).
	EvidenceWindow time.Duration

	// Manifests are files or directories of objects (--manifests; "-" reads Stdin), read as
	// client evidence; a file that cannot be read fails the run.
	Manifests []string
	Stdin     io.Reader
	// HelmReleases, when set, lists the cluster's Helm releases, whose manifests are client
	// evidence; a list that fails is a warning and a source not read, named HelmReleasesName.
	HelmReleases     func(context.Context) ([]snapshot.HelmRelease, error)
	HelmReleasesName string
	// ManagedFields, when set, reads the managedFields of the GVRs the checks found at risk;
	// the checks then run again with them as client evidence (the traffic is not replayed
	// again). A read that fails is a warning, never an abort.
	ManagedFields func(context.Context, []snapshot.ManagedFieldsRequest) ([]snapshot.ManagedFields, error)
	// Warn is told what could not be read (nil: not told).
	Warn func(string)
}

// Run rehearses the upgrade and runs every check (check), with the client evidence of
// Manifests and HelmReleases, and once more with the managedFields of the GVRs found at risk
// when ManagedFields is set. The report holds the whole verdict (Report.Verdict): the result,
// the exit class at FailOn, the assumptions, the provisional profiles and the partial reads it
// rests on; its findings blocking first. Traffic given with no resource request to replay is
// an error (replay.RequireReplayed).
func Run(ctx context.Context, o Options) (*Report, error) {
	for _, srv := range o.Start.Servers {
		if _, err := replay.CountsByGVR(srv.Requests); err != nil {
			o.warn(fmt.Sprintf("%s: request counters not taken as client evidence: %s", srv.Name, err))
		}
	}
	if pe := o.Start.Prometheus; pe != nil && pe.Error == "" {
		if src := replay.PrometheusEvidence(pe).Sources[0]; !src.Read {
			o.warn(fmt.Sprintf("Prometheus %s: not taken as client evidence: %s", pe.URL, src.Error))
		}
	}
	ev, err := o.clientEvidence(ctx)
	if err != nil {
		return nil, err
	}
	o.Evidence = ev
	rep, err := check(o)
	if err != nil {
		return nil, err
	}
	if o.ManagedFields != nil {
		if rep, err = o.withManagedFields(ctx, rep); err != nil {
			return nil, err
		}
	}
	if err := replay.RequireReplayed(rep.Traffic); err != nil {
		return nil, err
	}
	return rep, nil
}

// window is the evidence window: EvidenceWindow, or the default.
func (o *Options) window() time.Duration {
	if o.EvidenceWindow <= 0 {
		return replay.DefaultEvidenceWindow
	}
	return o.EvidenceWindow
}

func (o *Options) warn(msg string) {
	if o.Warn != nil {
		o.Warn(msg)
	}
}

// clientEvidence is o.Evidence with the evidence of every --manifests path and of the Helm
// releases added, in that order (nil when there is none).
func (o *Options) clientEvidence(ctx context.Context) (*replay.ClientEvidence, error) {
	ev := o.Evidence
	add := func(e replay.ClientEvidence) {
		if ev == nil {
			ev = &replay.ClientEvidence{}
		}
		ev.Merge(e)
	}
	for _, path := range o.Manifests {
		objs, err := replay.ReadManifests(path, o.Stdin)
		if err != nil {
			return nil, err
		}
		add(replay.ManifestEvidence(path, objs, o.Start))
	}
	if o.HelmReleases == nil {
		return ev, nil
	}
	releases, err := o.HelmReleases(ctx)
	if err != nil {
		o.warn(fmt.Sprintf("Helm releases not read: %s", err))
		add(replay.ClientEvidence{Sources: []replay.EvidenceSource{{Kind: replay.SourceHelmReleases, Name: o.HelmReleasesName, Error: err.Error()}}})
		return ev, nil
	}
	add(replay.HelmEvidence(releases, o.Start))
	return ev, nil
}

// withManagedFields reads the managedFields of the GVRs the first run found at risk and runs
// the checks again with them as client evidence (the same replayed traffic). A GVR whose
// objects cannot be listed (no permission) is one warning, never an abort.
func (o Options) withManagedFields(ctx context.Context, first *Report) (*Report, error) {
	gvrs := first.EvidenceWanted(o.Start)
	if len(gvrs) == 0 {
		return first, nil
	}
	reads, err := o.ManagedFields(ctx, gvrs)
	if err != nil {
		o.warn(fmt.Sprintf("managedFields not read: %s", err))
		return first, nil
	}
	for _, r := range reads {
		if r.Error != "" {
			o.warn(fmt.Sprintf("managedFields of %s not read: %s", r.GVR, r.Error))
		}
	}
	ev := replay.ManagedFieldsEvidence(reads)
	if o.Evidence != nil {
		ev.Merge(*o.Evidence)
	}
	o.Evidence, o.Replayed, o.Traffic = &ev, first.Traffic, nil
	return check(o)
}

// Notices are what a reader of the report must be told apart from it: how many findings a
// filter left out (Narrow), so a filtered pass is never read as the whole upgrade passing,
// and how to rewrite accept rules of an old form.
func (r *Report) Notices() []string {
	var out []string
	if r.Filtered != nil {
		out = append(out, fmt.Sprintf("only findings for %s (and those about no GVR) are reported: %d other finding(s) left out", r.Filtered.Filter, r.Filtered.Hidden))
	}
	return append(out, r.AcceptNotes...)
}

// pass is one run of the checks: what they read, and the report they fill.
type pass struct {
	o        Options
	sim      *simulate.Simulation
	rep      *Report
	evidence map[string]string     // where each server's data came from (startEvidence)
	diff     *peerdiscovery.Report // the start's peer-aggregated discovery against what it served
	harm     harm
}

// unit is one check of the gate: its findings, and whether it applies (a check that does not
// apply leaves the report's list of checks, with the checks in drop).
type unit struct {
	drop []Check
	run  func(p *pass) (found []Finding, applies bool)
}

// startUnits are the checks of the plane as it is at the start, in the order they run.
var startUnits = []unit{
	{nil, func(p *pass) ([]Finding, bool) { return configurationFindings(p.o.Start, p.evidence), true }},
	{[]Check{CheckDiscovery}, func(p *pass) ([]Finding, bool) {
		found, diff := discoveryFindings(p.o.Start, p.evidence)
		p.diff = diff
		return found, diff != nil
	}},
	{nil, func(p *pass) ([]Finding, bool) { return peerDiscoveryFindings(p.o.Start, p.evidence, p.diff), true }},
	{nil, func(p *pass) ([]Finding, bool) {
		return rebuildExitFindings(p.o.Start, len(p.o.Steps), p.evidence), true
	}},
	{[]Check{CheckAPIServices}, func(p *pass) ([]Finding, bool) { return apiServiceFindings(p.o.Start) }},
	{[]Check{CheckStatedDisagrees, CheckUpgradeNoPeerCA}, func(p *pass) ([]Finding, bool) {
		if len(p.sim.StatedConfigs) == 0 { // nothing stated: nothing checked
			return nil, false
		}
		return statedFindings(p.o.Start, p.o.Steps, p.sim, p.evidence), true
	}},
}

// upgradeUnits are the checks of the upgrade's steps and of the traffic replayed through them,
// judged on the harm the clients would see, in the order they run.
var upgradeUnits = []unit{
	{nil, func(p *pass) ([]Finding, bool) { return configLossFindings(p.sim, p.harm), true }},
	{nil, func(p *pass) ([]Finding, bool) { return routingFindings(p.sim, p.harm), true }},
	{nil, func(p *pass) ([]Finding, bool) {
		if p.rep.Traffic == nil {
			return nil, true
		}
		return trafficFindings(p.rep.Traffic, p.sim), true
	}},
}

func (p *pass) runUnits(units []unit) {
	for _, u := range units {
		found, applies := u.run(p)
		if !applies {
			for _, c := range u.drop {
				p.rep.Checks = withoutCheck(p.rep.Checks, c)
			}
			continue
		}
		p.rep.Findings = append(p.rep.Findings, found...)
	}
}

// check runs the scenario and every check once, narrows the findings to o.Filter and decides
// the verdict at o.FailOn (Report.Verdict).
func check(o Options) (*Report, error) {
	sim, err := simulate.Run(o.Start, o.Steps)
	if err != nil {
		return nil, err
	}
	p := &pass{o: o, sim: sim, rep: newReport(o, sim), evidence: startEvidence(o.Start)}
	p.runUnits(startUnits)
	if err := p.replay(); err != nil {
		return nil, err
	}
	p.harm = newHarm(sim, p.rep.Traffic, p.rep.Evidence, p.o.window())
	p.runUnits(upgradeUnits)
	if err := checkFilter(o.Filter, sim, p.rep.Traffic); err != nil {
		return nil, err
	}
	rep := p.rep
	rep.accept(o.Accept)
	bySeverity(rep.Findings)
	rep.summarize()
	rep.Narrow(o.Filter, o.Start.Kinds())
	return rep, nil
}

// newReport is the report of a pass before any check: what was checked and what it rests on.
func newReport(o Options, sim *simulate.Simulation) *Report {
	rep := &Report{APIVersion: report.APIVersion, Kind: Kind, Checks: Checks, Findings: []Finding{}, Simulation: sim,
		Assumptions: sim.Assumptions, Stated: sim.Stated, Provisional: sim.Provisional,
		Verdict: Verdict{FailOn: o.FailOn, Partial: partialReads(o.Start)}}
	rep.Scenario = ScenarioEcho{Start: o.Start.Source, TakenAt: o.Start.TakenAt, Target: o.Target, Profiles: sim.Profiles,
		Partial: o.Start.Partial(), Steps: []string{}}
	for _, s := range o.Start.Servers {
		rep.Scenario.Servers = append(rep.Scenario.Servers, simulate.ServerVersion{Name: s.Name, Version: s.Version})
	}
	for _, st := range o.Steps {
		rep.Scenario.Steps = append(rep.Scenario.Steps, st.String())
	}
	return rep
}

// replay replays the traffic through the simulation (or takes an earlier run's), and gathers
// the client evidence: the start's request counters and o.Evidence.
func (p *pass) replay() error {
	if p.o.Replayed != nil {
		p.rep.Traffic = p.o.Replayed
	} else if len(p.o.Traffic) > 0 {
		tr, err := replay.ReplayLogs(p.sim, p.o.Traffic, p.o.TrafficSource, p.o.TrafficFormat)
		if err != nil {
			return err
		}
		p.rep.Traffic = tr
	}
	ev := replay.RequestCountEvidence(p.o.Start)
	ev.Merge(replay.PrometheusEvidence(p.o.Start.Prometheus))
	if p.o.Evidence != nil {
		ev.Merge(*p.o.Evidence)
	}
	ev.WindowSeconds = int64(p.o.window() / time.Second)
	p.rep.Evidence = &ev
	return nil
}
