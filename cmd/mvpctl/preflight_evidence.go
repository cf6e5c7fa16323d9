package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/pkg/clientevidence"
	"github.com/mvpctl/mvpctl/pkg/discover"
	"github.com/mvpctl/mvpctl/pkg/preflight"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// options are the gate's options from the flags and the loaded plan: the live cluster's
// Helm releases and managedFields are read through pkg/clientevidence when asked for.
func (o *preflightOptions) options(cmd *cobra.Command, g *globalOptions, pl *planned, failOn preflight.FailOn, rules []preflight.AcceptRule) preflight.Options {
	in := preflight.Options{Start: pl.start, Steps: pl.steps, Target: o.plan.to,
		Traffic: pl.traffic, TrafficSource: pl.trafficSource, TrafficFormat: pl.trafficFormat, Accept: rules,
		Filter: o.filter.FilterOf(pl.start), FailOn: failOn, EvidenceWindow: time.Duration(o.evidence.window),
		Manifests: o.manifests, Stdin: cmd.InOrStdin(), Warn: g.warn}
	live := discover.Options{RESTClientGetter: g.configFlags, Timeout: o.plan.source.Live.Timeout}
	if o.helmReleases {
		helm := live
		helm.Warn = g.warn
		in.HelmReleases = func(ctx context.Context, into *replay.HelmMapper) error {
			return clientevidence.HelmReleases(ctx, helm.Evidence(), into)
		}
		in.HelmReleasesName = clientevidence.HelmReleaseType + " Secrets"
	}
	if o.live() && o.managedFieldsCap > 0 {
		in.ManagedFields = func(ctx context.Context, gvrs []snapshot.ManagedFieldsRequest, budget *replay.Budget) ([]snapshot.ManagedFields, error) {
			return clientevidence.ManagedFields(ctx, live.Evidence(), gvrs, o.managedFieldsCap, budget)
		}
	}
	return in
}

// live says whether the start is the live cluster (not a file, not profiles).
func (o *preflightOptions) live() bool {
	return o.plan.source.File == "" && o.plan.servers == "" && o.plan.scenario == ""
}
