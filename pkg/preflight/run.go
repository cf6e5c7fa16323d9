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
	// evidence, handing each record to into as it is read (an error from into stops the list
	// and is returned); a list that fails is a warning and a source not read, named
	// HelmReleasesName.
	HelmReleases     func(ctx context.Context, into *replay.HelmMapper) error
	HelmReleasesName string
	// ManagedFields, when set, reads the managedFields of the GVRs the checks found at risk;
	// the checks then run again with them as client evidence (the traffic is not replayed
	// again). A read that fails is a warning, never an abort. Each page is taken from the
	// run's budget, which the manifests and Helm releases have taken from before: at it, the
	// reads end with the budget's error, the last read the GVR it was cut in.
	ManagedFields func(context.Context, []snapshot.ManagedFieldsRequest, *replay.Budget) ([]snapshot.ManagedFields, error)
	// Warn is told what could not be read (nil: not told).
	Warn func(string)

	// manifestReads are what Manifests and the Helm releases gave, each object judged
	// (objects.go).
	manifestReads []replay.ManifestRead
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
	budget := replay.NewBudget()
	budget.StopWith(ctx)
	ev, err := o.clientEvidence(ctx, budget)
	if err != nil {
		return nil, err
	}
	o.Evidence = ev
	rep, err := check(o)
	if err != nil {
		return nil, err
	}
	if o.ManagedFields != nil {
		if rep, err = o.withManagedFields(ctx, rep, budget); err != nil {
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
// releases added, in that order (nil when there is none), all within one budget
// (replay.Budget): the source that reaches it is cut there, the ones after it not read.
func (o *Options) clientEvidence(ctx context.Context, budget *replay.Budget) (*replay.ClientEvidence, error) {
	ev := o.Evidence
	add := func(e replay.ClientEvidence) {
		if ev == nil {
			ev = &replay.ClientEvidence{}
		}
		ev.Merge(e)
	}
	for _, path := range o.Manifests {
		if budget.Spent() != nil {
			add(replay.ClientEvidence{Sources: []replay.EvidenceSource{{Kind: replay.SourceManifests, Name: path, Cut: replay.CutUnread}}})
			continue
		}
		set, err := replay.ReadManifestSetWithin(path, o.Stdin, budget)
		cut, isCut := replay.AsBudgetError(err)
		if err != nil && !isCut {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, err
		}
		o.manifestReads = append(o.manifestReads, set)
		e := replay.ManifestEvidence(path, set.Objects, o.Start)
		if isCut {
			e.Sources[0].Cut, e.Sources[0].Read = cut.Error(), len(set.Objects) > 0
		}
		add(e)
	}
	if o.HelmReleases == nil {
		return ev, nil
	}
	if budget.Spent() != nil {
		add(replay.ClientEvidence{Sources: []replay.EvidenceSource{{Kind: replay.SourceHelmReleases, Name: o.HelmReleasesName, Cut: replay.CutUnread}}})
		return ev, nil
	}
	helm := replay.NewHelmMapper(budget)
	if err := o.HelmReleases(ctx, helm); err != nil {
		if _, isCut := replay.AsBudgetError(err); !isCut {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			o.warn(fmt.Sprintf("Helm releases not read: %s", err))
			add(replay.ClientEvidence{Sources: []replay.EvidenceSource{{Kind: replay.SourceHelmReleases, Name: o.HelmReleasesName, Error: err.Error()}}})
			return ev, nil
		}
	}
	add(helm.Evidence(o.Start))
	o.manifestReads = append(o.manifestReads, helm.Reads()...)
	return ev, nil
}

// withManagedFields reads the managedFields of the GVRs the first run found at risk and runs
// the checks again with them as client evidence (the same replayed traffic). A GVR whose
// objects cannot be listed (no permission) is one warning, never an abort. At the run's
// budget the GVR being read is cut and the ones after it are not read (managedFieldsCut).
func (o Options) withManagedFields(ctx context.Context, first *Report, budget *replay.Budget) (*Report, error) {
	gvrs := first.EvidenceWanted(o.Start)
	if len(gvrs) == 0 {
		return first, nil
	}
	var reads []snapshot.ManagedFields
	var err error
	if budget.Spent() == nil {
		reads, err = o.ManagedFields(ctx, gvrs, budget)
	}
	cut, isCut := replay.AsBudgetError(err)
	if budget.Spent() != nil && err == nil {
		cut, isCut = budget.Spent(), true // spent before: none read
	}
	if err != nil && !isCut {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		o.warn(fmt.Sprintf("managedFields not read: %s", err))
		return first, nil
	}
	for _, r := range reads {
		if r.Error != "" {
			o.warn(fmt.Sprintf("managedFields of %s not read: %s", r.GVR, r.Error))
		}
	}
	o.withLiveObjects(reads)
	ev := replay.ManagedFieldsEvidence(reads)
	if isCut {
		managedFieldsCut(&ev, cut, gvrs[len(reads):])
	}
	if o.Evidence != nil {
		ev.Merge(*o.Evidence)
	}
	o.Evidence, o.Replayed, o.Traffic = &ev, first.Traffic, nil
	return check(o)
}

// managedFieldsCut marks ev's last source (when there is one: the GVR the budget was reached
// in) as cut by cut, and adds the GVRs not read as sources cut before they were read.
func managedFieldsCut(ev *replay.ClientEvidence, cut *replay.BudgetError, unread []snapshot.ManagedFieldsRequest) {
	if n := len(ev.Sources); n > 0 {
		s := &ev.Sources[n-1]
		s.Cut, s.Read = cut.Error(), s.Objects > 0
	}
	for _, r := range unread {
		ev.Sources = append(ev.Sources, replay.EvidenceSource{Kind: replay.SourceManagedFields, Name: r.GVR.String(), Via: r.Via.String(), Cut: replay.CutUnread})
	}
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
		RestsOn: sim.RestsOn, Verdict: Verdict{FailOn: o.FailOn}}
	if cut := o.Evidence.Cut(); cut != nil {
		rep.RestsOn = rep.RestsOn.WithReads(*cut)
	}
	rep.Scenario = ScenarioEcho{Start: o.Start.Source, TakenAt: o.Start.TakenAt, Target: o.Target, Profiles: sim.Profiles,
		Partial: len(rep.Reads.Unread) > 0, Steps: []string{}}
	for _, s := range o.Start.Servers {
		rep.Scenario.Servers = append(rep.Scenario.Servers, simulate.ServerVersion{Name: s.Name, Version: s.Version})
	}
	for _, st := range o.Steps {
		rep.Scenario.Steps = append(rep.Scenario.Steps, st.String())
		if srv := o.Start.Find(st.Server); st.Patch != "" && srv != nil {
			rep.Scenario.Kept = append(rep.Scenario.Kept, simulate.PatchNote(srv.Version, st))
		}
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
