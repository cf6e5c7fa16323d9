package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/pkg/replay"

	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// planFlags say where a simulation starts and what happens: a rolling upgrade (--to), a
// scenario file, or --step flags; from a snapshot, the live cluster, or --servers profiles.
type planFlags struct {
	source        snapshotSource
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
	profiles      profileFlags
}

func (p *planFlags) addFlags(fs *pflag.FlagSet) {
	p.source.addFlags(fs)
	p.source.live.instead = "pass --snapshot FILE or --servers NAME=VERSION,..."
	p.profiles.addFlags(fs)
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

// plan returns the starting snapshot, the steps, and the target version ("" when not an
// upgrade).
func (p *planFlags) plan(ctx context.Context, g *globalOptions) (*snapshot.Snapshot, []simulate.Step, error) {
	if err := p.validate(); err != nil {
		return nil, nil, err
	}
	if err := p.profiles.use(g); err != nil {
		return nil, nil, err
	}
	if p.proxy != "" && p.servers == "" && p.scenario == "" {
		return nil, nil, errors.New("--proxy sets up servers started from profiles (--servers, or a scenario's from.servers); a snapshot or a live cluster says how each server is set up: drop --proxy")
	}
	if p.scenario != "" {
		sc, err := simulate.LoadScenario(p.scenario)
		if err != nil {
			return nil, nil, err
		}
		var start *snapshot.Snapshot
		if sc.From.Snapshot != "" && p.proxy != "" {
			return nil, nil, fmt.Errorf("--proxy sets up servers started from profiles, and scenario %s starts from a snapshot, which says how each server is set up: drop --proxy", p.scenario)
		}
		if sc.From.Snapshot != "" {
			path := sc.From.Snapshot
			if !filepath.IsAbs(path) {
				path = filepath.Join(filepath.Dir(p.scenario), path)
			}
			start, err = snapshot.LoadFile(path)
		} else {
			if err := simulate.ApplyProxyFlag(sc.From.Servers, p.proxy); err != nil {
				return nil, nil, err
			}
			if err := simulate.ApplyRuntimeConfigFlag(sc.From.Servers, p.runtimeConfig); err != nil {
				return nil, nil, err
			}
			start, err = simulate.FromProfiles(sc.From.Servers, g.now())
		}
		if err != nil {
			return nil, nil, fmt.Errorf("scenario %s: from: %w", p.scenario, err)
		}
		return start, sc.Steps, p.checkSkew(start, sc.Steps)
	}
	start, err := p.start(ctx, g)
	if err != nil {
		return nil, nil, err
	}
	if p.to != "" {
		steps, err := simulate.UpgradePlan(start, p.to, p.order)
		if err != nil {
			return nil, nil, err
		}
		return start, steps, p.checkSkew(start, steps)
	}
	steps, err := parseSteps(p.steps)
	if err != nil {
		return nil, nil, err
	}
	return start, steps, p.checkSkew(start, steps)
}

// addStepFlag adds --step, the what-if steps of simulate run and explain, to fs; what says
// what the steps are applied to, after "(repeatable, in order".
func addStepFlag(fs *pflag.FlagSet, steps *[]string, what string) {
	fs.StringArrayVar(steps, "step", nil, "a step: upgrade:SERVER=VERSION[,runtime-config=...], crash:SERVER, stop:SERVER, start:SERVER, gate-off:SERVER, drop-peer-ca:SERVER, peer-ca-wrong|peer-ca-right:SERVER, advertise-unreachable|advertise-reachable:SERVER (repeatable, in order"+what+")")
}

// parseSteps parses the values of --step, in order.
func parseSteps(values []string) ([]simulate.Step, error) {
	var steps []simulate.Step
	for _, s := range values {
		st, err := simulate.ParseStep(s)
		if err != nil {
			return nil, err
		}
		steps = append(steps, st)
	}
	return steps, nil
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
	case p.servers != "" && p.source.file != "":
		return errors.New("give one of --servers and --snapshot")
	case p.scenario != "" && (p.servers != "" || p.source.file != ""):
		return fmt.Errorf("scenario %s says where to start: drop --servers and --snapshot", p.scenario)
	case p.requests != "" && len(p.auditLogs) > 0:
		return errors.New("give one of --requests and --audit-log")
	}
	for _, v := range p.auditLogs {
		if server, path, named := splitAuditLog(v); path == "" || named && server == "" {
			return fmt.Errorf("--audit-log %q: want FILE or SERVER=FILE", v)
		}
	}
	switch {
	case p.servers != "":
		return p.source.refuseLiveFlags("--servers")
	case p.scenario != "":
		return p.source.refuseLiveFlags("--scenario")
	}
	return p.source.validate()
}

// checkSkew refuses a plan outside the version-skew policy unless --allow-skew.
func (p *planFlags) checkSkew(start *snapshot.Snapshot, steps []simulate.Step) error {
	if p.allowSkew {
		return nil
	}
	return simulate.CheckSkew(start, steps)
}

func (p *planFlags) start(ctx context.Context, g *globalOptions) (*snapshot.Snapshot, error) {
	if p.servers != "" {
		return profilesStart(g, p.servers, p.proxy, p.runtimeConfig)
	}
	if p.runtimeConfig != "" {
		return nil, errors.New("--runtime-config goes with --servers (or a scenario's servers): an observed apiserver serves what its own flags say; a step can change them (--step upgrade:SERVER=VERSION,runtime-config=...)")
	}
	start, err := p.source.load(ctx, g)
	if err == nil && p.source.file != "" {
		start.Source = offlineStart(p.source.file, start)
	}
	return start, err
}

// addProfileStartFlags adds --servers and --proxy, a control plane started from version
// profiles (simulate, preflight, routes).
func addProfileStartFlags(fs *pflag.FlagSet, servers, proxy *string) {
	fs.StringVar(servers, "servers", "", "start from version profiles instead of a snapshot: NAME=VERSION,... (e.g. a=1.36,b=1.36,c=1.36)")
	fs.StringVar(proxy, "proxy", "", "how servers started from profiles have the Mixed Version Proxy set up: default (the binary's defaults: no --peer-ca-file, so no filter), configured (gate on, --peer-ca-file set) or off; one for all, or NAME=SETUP,... (default: default)")
}

// profilesStart is the control plane --servers, --proxy and --runtime-config describe.
func profilesStart(g *globalOptions, servers, proxy, runtimeConfig string) (*snapshot.Snapshot, error) {
	sv, err := simulate.ParseServers(servers)
	if err != nil {
		return nil, err
	}
	if err := simulate.ApplyProxyFlag(sv, proxy); err != nil {
		return nil, err
	}
	if err := simulate.ApplyRuntimeConfigFlag(sv, runtimeConfig); err != nil {
		return nil, err
	}
	return simulate.FromProfiles(sv, g.now())
}

// offlineStart says where a simulation read from a snapshot file starts: the file, and when and
// from where it was recorded — not the context it was recorded from, as if it had connected.
func offlineStart(file string, snap *snapshot.Snapshot) string {
	if file == "-" {
		file = "from stdin"
	}
	if filepath.IsAbs(file) {
		file = filepath.Base(file) // as given when relative; a long absolute path says no more
	}
	s := "snapshot " + file
	var of []string
	if !snap.TakenAt.IsZero() {
		of = append(of, "taken "+snap.TakenAt.UTC().Format(time.RFC3339))
	}
	if snap.Source != "" {
		of = append(of, "of "+snap.Source)
	}
	if len(of) > 0 {
		s += " (" + strings.Join(of, ", ") + ")"
	}
	return s
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

// load resolves the plan and opens the traffic file.
func (p *planFlags) load(ctx context.Context, g *globalOptions) (*planned, error) {
	start, steps, err := p.plan(ctx, g)
	if err != nil {
		return nil, err
	}
	tr, source, format, err := p.traffic(start)
	if err != nil {
		return nil, err
	}
	return &planned{start: start, steps: steps, traffic: tr, trafficSource: source, trafficFormat: format}, nil
}

// traffic opens the traffic files, if any were given; an audit log's SERVER must be one of
// start's servers. The caller closes them.
func (p *planFlags) traffic(start *snapshot.Snapshot) ([]*replay.Reader, string, string, error) {
	switch { // validate has checked the flags
	case p.requests != "":
		tr, err := replay.Open(p.requests, replay.FormatRequests)
		if err != nil {
			return nil, "", "", err
		}
		return []*replay.Reader{tr}, p.requests, replay.FormatRequests, nil
	case len(p.auditLogs) > 0:
		var trs []*replay.Reader
		for _, v := range p.auditLogs {
			server, path, named := splitAuditLog(v)
			if named && start.Find(server) == nil {
				closeAll(trs)
				return nil, "", "", fmt.Errorf("--audit-log %q: no apiserver %q in the control plane (apiservers: %s)", v, server, strings.Join(start.ServerNames(), ", "))
			}
			tr, err := replay.Open(path, replay.FormatAuditLog)
			if err != nil {
				closeAll(trs)
				return nil, "", "", err
			}
			tr.Server = server
			trs = append(trs, tr)
		}
		return trs, strings.Join(p.auditLogs, ","), replay.FormatAuditLog, nil
	}
	return nil, "", "", nil
}

// splitAuditLog reads an --audit-log value: SERVER=FILE when there is an '=' before any path
// separator, FILE otherwise (give a file whose name has an '=' as ./NAME).
func splitAuditLog(v string) (server, path string, named bool) {
	i := strings.IndexByte(v, '=')
	if i < 0 || strings.ContainsAny(v[:i], `/\`) {
		return "", v, false
	}
	return v[:i], v[i+1:], true
}

func closeAll(trs []*replay.Reader) {
	for _, tr := range trs {
		tr.Close()
	}
}

func joinOrNone(s []string) string {
	if len(s) == 0 {
		return "<none>"
	}
	return strings.Join(s, ",")
}
