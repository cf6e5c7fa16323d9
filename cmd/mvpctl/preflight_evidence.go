package main

import (
	"context"
	"fmt"

	"github.com/mvpctl/mvpctl/pkg/preflight"
	"github.com/mvpctl/mvpctl/pkg/replay"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/pkg/discover"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// manifestEvidence reads every --manifests path (nil when none is given).
func (o *preflightOptions) manifestEvidence(cmd *cobra.Command, start *snapshot.Snapshot) (*replay.ClientEvidence, error) {
	if len(o.manifests) == 0 {
		return nil, nil
	}
	ev := &replay.ClientEvidence{}
	for _, path := range o.manifests {
		objs, err := replay.ReadManifests(path, cmd.InOrStdin())
		if err != nil {
			return nil, err
		}
		ev.Merge(replay.ManifestEvidence(path, objs, start))
	}
	return ev, nil
}

// live says whether the start is the live cluster (not a file, not profiles).
func (o *preflightOptions) live() bool {
	return o.plan.source.file == "" && o.plan.servers == "" && o.plan.scenario == ""
}

// withManagedFields reads the managedFields of the GVRs the first run found at risk and runs
// the checks again with them as client evidence (the same replayed traffic). A GVR whose
// objects cannot be listed (no permission) is one warning, never an abort.
func (o *preflightOptions) withManagedFields(ctx context.Context, g *globalOptions, pl *planned, in preflight.Input, first *preflight.Report) (*preflight.Report, error) {
	gvrs := first.EvidenceWanted(pl.start)
	if len(gvrs) == 0 {
		return first, nil
	}
	opts := discover.Options{RESTClientGetter: g.configFlags, Timeout: o.plan.source.live.timeout}
	reads, err := discover.ManagedFields(ctx, opts, gvrs, o.managedFieldsCap)
	if err != nil {
		g.warn(fmt.Sprintf("managedFields not read: %s", err))
		return first, nil
	}
	for _, r := range reads {
		if r.Error != "" {
			g.warn(fmt.Sprintf("managedFields of %s not read: %s", r.GVR, r.Error))
		}
	}
	ev := replay.ManagedFieldsEvidence(reads)
	if in.Evidence != nil {
		ev.Merge(*in.Evidence)
	}
	in.Evidence, in.Replayed, in.Traffic = &ev, first.Traffic, nil
	return preflight.Run(in)
}

// helmEvidence reads the cluster's Helm releases and adds their evidence to ev; a list that
// fails (no permission on Secrets) is one warning and a source not read.
func (o *preflightOptions) helmEvidence(ctx context.Context, g *globalOptions, start *snapshot.Snapshot, ev *replay.ClientEvidence) *replay.ClientEvidence {
	if ev == nil {
		ev = &replay.ClientEvidence{}
	}
	opts := discover.Options{RESTClientGetter: g.configFlags, Timeout: o.plan.source.live.timeout, Warn: g.warn}
	releases, err := discover.HelmReleases(ctx, opts)
	if err != nil {
		g.warn(fmt.Sprintf("Helm releases not read: %s", err))
		ev.Merge(replay.ClientEvidence{Sources: []replay.EvidenceSource{{Kind: replay.SourceHelmReleases, Name: discover.HelmReleaseType + " Secrets", Error: err.Error()}}})
		return ev
	}
	ev.Merge(replay.HelmEvidence(releases, start))
	return ev
}
