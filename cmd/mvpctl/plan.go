package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// planFlags say where a simulation starts and what happens: a rolling upgrade (--to), a
// scenario file, or --step flags; from a snapshot, the live cluster, or --servers profiles.
type planFlags struct {
	source        cli.SnapshotSource
	servers       string
	to            string
	order         []string
	scenario      string
	steps         []string
	requests      string
	auditLogs     []string
	proxy         string
	runtimeConfig string
	allowSkew     bool
	profiles      cli.ProfileFlags
}

func (p *planFlags) addFlags(fs *pflag.FlagSet) {
	p.source.AddFlags(fs)
	p.source.Live.Instead = "pass --snapshot FILE or --servers NAME=VERSION,..."
	p.profiles.AddFlags(fs)
	addProfileStartFlags(fs, &p.servers, &p.proxy)
	fs.StringVar(&p.runtimeConfig, "runtime-config", "", "the --runtime-config every server started from a profile runs with (--servers, a scenario's servers), kept by upgrades: e.g. resource.k8s.io/v1beta1=true")
	fs.BoolVar(&p.allowSkew, "allow-skew", false, "simulate upgrades that skip a minor version or go backwards, outside the Kubernetes version-skew policy")
	fs.StringVar(&p.to, "to", "", "rolling upgrade of every server to this version (each server is stopped, then started at it)")
	fs.StringSliceVar(&p.order, "order", nil, "with --to: the order in which servers are upgraded (default: snapshot order)")
	fs.StringVar(&p.scenario, "scenario", "", "a Scenario file (kind: Scenario) giving the start and the steps")
	addStepFlag(fs, &p.steps, "")
	fs.StringVar(&p.requests, "requests", "", "replay the requests of this file (one METHOD PATH a line; gzip accepted)")
	fs.StringArrayVar(&p.auditLogs, "audit-log", nil, "replay the requests of this Kubernetes audit log (audit.k8s.io/v1 Event JSON lines; gzip accepted): FILE, or SERVER=FILE naming the apiserver that wrote it; repeatable, the logs are replayed one after another and a request logged by two servers (proxied) is counted once and joined")
}

// addStepFlag adds --step, the what-if steps of simulate run and explain, to fs; what says
// what the steps are applied to, after "(repeatable, in order".
func addStepFlag(fs *pflag.FlagSet, steps *[]string, what string) {
	fs.StringArrayVar(steps, "step", nil, "a step: "+strings.Join(simulate.StepForms(), ", ")+" (repeatable, in order"+what+")")
}

// validate checks the flags together, before anything is read: one way to give the steps,
// one start, and the flags that go with each.
func (p *planFlags) validate() error {
	modes := 0
	for _, set := range []bool{p.to != "", p.scenario != "", len(p.steps) > 0} {
		if set {
			modes++
		}
	}
	switch {
	case modes > 1:
		return errors.New("give one of --to, --scenario and --step")
	case len(p.order) > 0 && p.to == "":
		return errors.New("--order goes with --to")
	case p.servers != "" && p.source.File != "":
		return errors.New("give one of --servers and --snapshot")
	case p.scenario != "" && (p.servers != "" || p.source.File != ""):
		return fmt.Errorf("scenario %s says where to start: drop --servers and --snapshot", p.scenario)
	case p.requests != "" && len(p.auditLogs) > 0:
		return errors.New("give one of --requests and --audit-log")
	}
	for _, v := range p.auditLogs {
		if server, path, named := replay.SplitAuditLog(v); path == "" || named && server == "" {
			return fmt.Errorf("--audit-log %q: want FILE or SERVER=FILE", v)
		}
	}
	switch {
	case p.servers != "":
		return p.source.RefuseLiveFlags("--servers")
	case p.scenario != "":
		return p.source.RefuseLiveFlags("--scenario")
	}
	return p.source.Validate()
}

// addProfileStartFlags adds --servers and --proxy, a control plane started from version
// profiles (simulate, preflight, routes).
func addProfileStartFlags(fs *pflag.FlagSet, servers, proxy *string) {
	fs.StringVar(servers, "servers", "", "start from version profiles instead of a snapshot: NAME=VERSION,... (e.g. a=1.36,b=1.36,c=1.36)")
	fs.StringVar(proxy, "proxy", "", "how servers started from profiles have the Mixed Version Proxy set up: default (the binary's defaults: no --peer-ca-file, so no filter), configured (gate on, --peer-ca-file set) or off; one for all, or NAME=SETUP,... (default: default)")
}

// planned is a loaded plan: where it starts, its steps, and the traffic to replay (nil when
// none was given; close it when done).
type planned struct {
	start         *snapshot.Snapshot
	steps         []simulate.Step
	traffic       []*replay.Reader
	trafficSource string
	trafficFormat string
}

func (p *planned) close() {
	for _, tr := range p.traffic {
		tr.Close()
	}
}

// load resolves the plan (simulate.NewPlan) and opens the traffic files (replay.OpenSources).
func (p *planFlags) load(ctx context.Context, g *globalOptions) (*planned, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if err := p.profiles.Use(g.warn); err != nil {
		return nil, err
	}
	pl, err := simulate.NewPlan(ctx, simulate.PlanOptions{Scenario: p.scenario, Servers: p.servers, Proxy: p.proxy,
		RuntimeConfig: p.runtimeConfig, To: p.to, Order: p.order, Steps: p.steps, AllowSkew: p.allowSkew,
		Load:         func(ctx context.Context) (*snapshot.Snapshot, error) { return p.source.Load(ctx, g.env()) },
		SnapshotFile: p.source.File, Now: g.now()})
	if err != nil {
		return nil, err
	}
	tr, err := replay.OpenSources(p.requests, p.auditLogs, pl.Start)
	if err != nil {
		return nil, err
	}
	return &planned{start: pl.Start, steps: pl.Steps, traffic: tr.Readers, trafficSource: tr.Source, trafficFormat: tr.Format}, nil
}
