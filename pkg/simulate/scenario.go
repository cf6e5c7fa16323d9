// Package simulate rehearses changes to a control plane before they happen: a Scenario rewrites
// a Snapshot step by step (upgrade, crash, stop, start, restart, gate off, peer CA dropped or wrong, advertise address unreachable), pkg/route
// evaluates every step, and traffic (request lists, audit logs) is replayed through each.
package simulate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"sigs.k8s.io/yaml"
)

// ScenarioKind is the kind of a scenario file.
const ScenarioKind = "Scenario"

// MaxSteps bounds the steps one simulation applies: the routing after every step is kept for
// the report (about 0.3 MB a step for two servers started from profiles, more for a larger
// control plane), so an unbounded list costs unbounded memory (20,000 steps took 6 GB). A
// rolling upgrade is a few steps a server; a crash drill a few more.
const MaxSteps = 200

// MaxScenarioFile bounds a scenario file's size: 200 steps take a few KiB.
const MaxScenarioFile = 1 << 20

// Scenario is a starting control plane and the steps applied to it.
type Scenario struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// From says where the control plane starts: a snapshot file, or servers built from
	// version profiles. Exactly one.
	From  From   `json:"from"`
	Steps []Step `json:"steps"`
}

// From is the starting point of a scenario.
type From struct {
	// Snapshot is a snapshot file, relative to the scenario file.
	Snapshot string `json:"snapshot,omitempty"`
	// Servers are built from profiles: name and version.
	Servers []ServerVersion `json:"servers,omitempty"`
}

// ServerVersion is one server started from a profile.
type ServerVersion struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Proxy is how its Mixed Version Proxy is set up: default (the binary's defaults: no
	// --peer-ca-file, so no filter), configured, or off. Empty means default.
	Proxy string `json:"proxy,omitempty"`
	// RuntimeConfig is the --runtime-config it runs with (mvp.ParseRuntimeConfig); empty for
	// none. Upgrades keep it, as they keep the flags.
	RuntimeConfig string `json:"runtimeConfig,omitempty"`
}

// Actions a step can take.
const (
	ActionUpgrade    = "upgrade"      // graceful stop, then start at version To
	ActionCrash      = "crash"        // SIGKILL: identity lease kept
	ActionStop       = "stop"         // SIGTERM: identity lease deleted on 1.35+
	ActionStart      = "start"        // start a crashed or stopped server again
	ActionGateOff    = "gate-off"     // restart with UnknownVersionInteroperabilityProxy=false
	ActionDropPeerCA = "drop-peer-ca" // restart without --peer-ca-file
	// ActionPeerCAWrong restarts the server with a --peer-ca-file that does not trust its peers'
	// serving certificates: it learns no peer; ActionPeerCARight restores the right one.
	ActionPeerCAWrong = "peer-ca-wrong"
	ActionPeerCARight = "peer-ca-right"
	// ActionAdvertiseUnreachable restarts the server with a peer-advertise address its peers
	// cannot reach: no peer learns it; ActionAdvertiseReachable restores a reachable one.
	ActionAdvertiseUnreachable = "advertise-unreachable"
	ActionAdvertiseReachable   = "advertise-reachable"
	// ActionKeep changes nothing: a server a rolling upgrade leaves alone because it already
	// runs the target version.
	ActionKeep = "keep"
)

// StepKind is one action as a --step flag gives it, for help: what it does to the server and
// an example flag value (on servers named a and b), and its form in --step's help (Form: ""
// when the kind before it lists it, as peer-ca-wrong|peer-ca-right:SERVER does, or it is no
// user's step: keep).
type StepKind struct {
	Action, Does, Example, Form string
}

// Step is one change to one server.
type Step struct {
	Action string `json:"action"`
	Server string `json:"server"`
	// To is the target version of an upgrade.
	To string `json:"to,omitempty"`
	// RuntimeConfig, on an upgrade, is the --runtime-config the upgraded server starts with.
	// Unset: the configuration inferred from what the server serves before the upgrade is
	// kept, as a real upgrade keeps the flags. "default" means no --runtime-config at all.
	RuntimeConfig *StepRuntimeConfig `json:"runtimeConfig,omitempty"`
	// Patch, on a keep step, is the newer patch release of the server's minor version that an
	// upgrade to a minor (--to 1.37) leaves out: upgrading to it (--to 1.37.2) restarts the
	// server, which this plan does not rehearse.
	Patch string `json:"patch,omitempty"`
}

func (s Step) String() string {
	if s.Action == ActionUpgrade {
		out := fmt.Sprintf("upgrade %s to %s", s.Server, s.To)
		if s.RuntimeConfig != nil {
			out += " with --runtime-config=" + s.RuntimeConfig.String()
		}
		return out
	}
	if s.Action == ActionKeep && s.Patch != "" {
		return "keep " + s.Server + " (at the target minor version: not upgraded to " + s.Patch + ")"
	}
	if s.Action == ActionKeep {
		return "keep " + s.Server + " (already at the target version: not upgraded)"
	}
	return s.Action + " " + s.Server
}

// LoadScenario reads and validates a scenario file.
func LoadScenario(path string) (*Scenario, error) {
	data, err := readScenarioFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", path, err)
	}
	var sc Scenario
	if err := yaml.UnmarshalStrict(data, &sc); err != nil {
		return nil, fmt.Errorf("scenario %s: cannot parse: %s", path, strings.Join(strings.Fields(err.Error()), " "))
	}
	if err := sc.Validate(); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", path, err)
	}
	return &sc, nil
}

// readScenarioFile reads at most MaxScenarioFile bytes of path.
func readScenarioFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errors.Unwrap(err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxScenarioFile+1))
	if err != nil {
		return nil, errors.Unwrap(err)
	}
	if len(data) > MaxScenarioFile {
		return nil, fmt.Errorf("larger than %d MiB: not a scenario file", MaxScenarioFile>>20)
	}
	return data, nil
}

// Validate checks the scenario's shape; server names are checked against the starting
// snapshot when it is built.
func (sc *Scenario) Validate() error {
	// A scenario's format did not change with the snapshot's mvpctl.io/v1alpha2: it is read
	// under either name.
	if sc.APIVersion != snapshot.APIVersion && sc.APIVersion != snapshot.APIVersionV1Alpha1 {
		return fmt.Errorf("apiVersion: got %q, want %q (or %s)", sc.APIVersion, snapshot.APIVersion, snapshot.APIVersionV1Alpha1)
	}
	if sc.Kind != ScenarioKind {
		return fmt.Errorf("kind: got %q, want %q", sc.Kind, ScenarioKind)
	}
	if (sc.From.Snapshot == "") == (len(sc.From.Servers) == 0) {
		return errors.New("from: give exactly one of snapshot and servers")
	}
	for i, s := range sc.From.Servers {
		if s.Name == "" || s.Version == "" {
			return fmt.Errorf("from.servers[%d]: name and version must be set", i)
		}
		if _, err := mvp.ParseRuntimeConfig(s.RuntimeConfig); err != nil {
			return fmt.Errorf("from.servers[%d]: %w", i, err)
		}
	}
	if err := checkStepCount(len(sc.Steps)); err != nil {
		return fmt.Errorf("steps: %w", err)
	}
	for i, st := range sc.Steps {
		if err := st.validate(); err != nil {
			return fmt.Errorf("steps[%d]: %w", i, err)
		}
	}
	return nil
}

// checkStepCount refuses more than MaxSteps steps.
func checkStepCount(n int) error {
	if n > MaxSteps {
		return fmt.Errorf("%d steps; at most %d are simulated (the routing after each is kept for the report): split the scenario", n, MaxSteps)
	}
	return nil
}

func (s Step) validate() error {
	known := false
	for _, a := range actions {
		known = known || s.Action == a
	}
	if !known {
		return fmt.Errorf("action: %q is not one of %s", s.Action, strings.Join(actions, ", "))
	}
	if s.Server == "" {
		return errors.New("server: must be set")
	}
	if (s.Action == ActionUpgrade) != (s.To != "") {
		return errors.New("to: set for upgrade steps, and only for them")
	}
	if s.RuntimeConfig != nil {
		if s.Action != ActionUpgrade {
			return errors.New("runtimeConfig: set for upgrade steps only")
		}
		if err := s.RuntimeConfig.Err(); err != nil {
			return err
		}
	}
	return nil
}

// ParseServers reads the --servers flag: "a=1.36,b=1.36,c=1.37".
func ParseServers(s string) ([]ServerVersion, error) {
	var out []ServerVersion
	for _, part := range strings.Split(s, ",") {
		name, version, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || name == "" || version == "" {
			return nil, fmt.Errorf("--servers: %q is not NAME=VERSION (e.g. a=1.36,b=1.36)", part)
		}
		out = append(out, ServerVersion{Name: name, Version: version})
	}
	return out, nil
}

// ApplyRuntimeConfigFlag sets the --runtime-config of every server started from a profile
// (the --runtime-config flag of simulate and preflight); "" changes nothing.
func ApplyRuntimeConfigFlag(servers []ServerVersion, flag string) error {
	if flag == "" {
		return nil
	}
	if _, err := mvp.ParseRuntimeConfig(flag); err != nil {
		return fmt.Errorf("--runtime-config: %w", err)
	}
	for i := range servers {
		servers[i].RuntimeConfig = flag
	}
	return nil
}

// ApplyProxyFlag sets the proxy setup of servers from the --proxy flag: one setup for every
// server ("configured"), or NAME=SETUP pairs ("a=configured,b=off"). A server a pair does not
// name keeps its own (a scenario file's, else the default).
func ApplyProxyFlag(servers []ServerVersion, flag string) error {
	if flag == "" {
		return nil
	}
	if !strings.Contains(flag, "=") {
		if _, err := mvp.ParseProxySetup(flag); err != nil {
			return fmt.Errorf("--proxy: %w", err)
		}
		for i := range servers {
			servers[i].Proxy = flag
		}
		return nil
	}
	for _, part := range strings.Split(flag, ",") {
		name, setup, _ := strings.Cut(strings.TrimSpace(part), "=")
		if _, err := mvp.ParseProxySetup(setup); err != nil {
			return fmt.Errorf("--proxy %q: %w", part, err)
		}
		found := false
		for i := range servers {
			if servers[i].Name == name {
				servers[i].Proxy, found = setup, true
			}
		}
		if !found {
			return fmt.Errorf("--proxy %q: no server %q among those started from profiles", part, name)
		}
	}
	return nil
}

// ParseStep reads a step flag: "upgrade:a=1.37", "crash:b", "stop:c".
func ParseStep(s string) (Step, error) {
	action, rest, ok := strings.Cut(s, ":")
	if !ok {
		return Step{}, fmt.Errorf("--step %q: want ACTION:SERVER (or upgrade:SERVER=VERSION)", s)
	}
	st := Step{Action: action, Server: rest}
	if action == ActionUpgrade {
		// upgrade:b=1.37 or upgrade:b=1.37,runtime-config=batch/v1=false
		target, cfg, hasCfg := strings.Cut(rest, ",runtime-config=")
		st.Server, st.To, _ = strings.Cut(target, "=")
		if hasCfg {
			st.RuntimeConfig = ReadStepRuntimeConfig(cfg)
		}
	}
	if err := st.validate(); err != nil {
		return Step{}, fmt.Errorf("--step %q: %w", s, err)
	}
	return st, nil
}
