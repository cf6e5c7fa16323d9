package simulate

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// PlanOptions say where a simulation starts and what happens in it: a scenario file giving
// both; or a start — servers from version profiles (Servers), else the snapshot Load reads —
// and steps — a rolling upgrade to To in Order, else Steps (ParseStep's form).
type PlanOptions struct {
	Scenario string
	// Servers is NAME=VERSION,... (ParseServers); Proxy and RuntimeConfig set up the servers
	// started from profiles (ApplyProxyFlag, ApplyRuntimeConfigFlag).
	Servers       string
	Proxy         string
	RuntimeConfig string
	To            string
	Order         []string
	Steps         []string
	// AllowSkew allows steps outside the version-skew policy (CheckSkew).
	AllowSkew bool
	// Load reads the start when neither Scenario nor Servers gives it: a snapshot file, or the
	// live cluster. SnapshotFile is the file it reads ("" for the live cluster, "-" stdin):
	// the start's Source then says so.
	Load         func(context.Context) (*snapshot.Snapshot, error)
	SnapshotFile string
	// Now is when servers started from profiles are observed.
	Now time.Time
}

// Plan is where a simulation starts and its steps.
type Plan struct {
	Start *snapshot.Snapshot
	Steps []Step
}

// NewPlan resolves o into a start and steps, and refuses steps outside the version-skew
// policy unless o.AllowSkew.
func NewPlan(ctx context.Context, o PlanOptions) (Plan, error) {
	if o.Proxy != "" && o.Servers == "" && o.Scenario == "" {
		return Plan{}, errors.New("--proxy sets up servers started from profiles (--servers, or a scenario's from.servers); a snapshot or a live cluster says how each server is set up: drop --proxy")
	}
	var pl Plan
	var err error
	if o.Scenario != "" {
		pl, err = o.scenario()
	} else {
		pl, err = o.startAndSteps(ctx)
	}
	if err != nil {
		return Plan{}, err
	}
	if !o.AllowSkew {
		err = CheckSkew(pl.Start, pl.Steps)
	}
	return pl, err
}

// scenario is the plan of a scenario file: its start (a snapshot beside it, or servers from
// profiles) and its steps.
func (o PlanOptions) scenario() (Plan, error) {
	sc, err := LoadScenario(o.Scenario)
	if err != nil {
		return Plan{}, err
	}
	if sc.From.Snapshot != "" && o.Proxy != "" {
		return Plan{}, fmt.Errorf("--proxy sets up servers started from profiles, and scenario %s starts from a snapshot, which says how each server is set up: drop --proxy", o.Scenario)
	}
	var start *snapshot.Snapshot
	if sc.From.Snapshot != "" {
		path := sc.From.Snapshot
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(o.Scenario), path)
		}
		start, err = snapshot.LoadFile(path)
	} else {
		if err := applyProfileFlags(sc.From.Servers, o.Proxy, o.RuntimeConfig); err != nil {
			return Plan{}, err
		}
		start, err = FromProfiles(sc.From.Servers, o.Now)
	}
	if err != nil {
		return Plan{}, fmt.Errorf("scenario %s: from: %w", o.Scenario, err)
	}
	return Plan{Start: start, Steps: sc.Steps}, nil
}

// startAndSteps is the plan of a start (Servers or Load) and the steps To or Steps say.
func (o PlanOptions) startAndSteps(ctx context.Context) (Plan, error) {
	start, err := o.start(ctx)
	if err != nil {
		return Plan{}, err
	}
	var steps []Step
	if o.To != "" {
		steps, err = UpgradePlan(start, o.To, o.Order)
	} else {
		steps, err = ParseSteps(o.Steps)
	}
	return Plan{Start: start, Steps: steps}, err
}

func (o PlanOptions) start(ctx context.Context) (*snapshot.Snapshot, error) {
	if o.Servers != "" {
		return ProfilesStart(o.Servers, o.Proxy, o.RuntimeConfig, o.Now)
	}
	if o.RuntimeConfig != "" {
		return nil, errors.New("--runtime-config goes with --servers (or a scenario's servers): an observed apiserver serves what its own flags say; a step can change them (--step upgrade:SERVER=VERSION,runtime-config=...)")
	}
	start, err := o.Load(ctx)
	if err == nil && o.SnapshotFile != "" {
		start.Source = offlineStart(o.SnapshotFile, start)
	}
	return start, err
}

// ParseSteps parses steps in ParseStep's form, in order.
func ParseSteps(values []string) ([]Step, error) {
	var steps []Step
	for _, s := range values {
		st, err := ParseStep(s)
		if err != nil {
			return nil, err
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// ProfilesStart is the control plane of servers (NAME=VERSION,...) started from version
// profiles, set up as proxy and runtimeConfig say, observed at now.
func ProfilesStart(servers, proxy, runtimeConfig string, now time.Time) (*snapshot.Snapshot, error) {
	sv, err := ParseServers(servers)
	if err != nil {
		return nil, err
	}
	if err := applyProfileFlags(sv, proxy, runtimeConfig); err != nil {
		return nil, err
	}
	return FromProfiles(sv, now)
}

// applyProfileFlags sets servers started from profiles up as proxy and runtimeConfig say.
func applyProfileFlags(sv []ServerVersion, proxy, runtimeConfig string) error {
	if err := ApplyProxyFlag(sv, proxy); err != nil {
		return err
	}
	return ApplyRuntimeConfigFlag(sv, runtimeConfig)
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
