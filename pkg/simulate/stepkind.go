package simulate

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// A stepAction is what one kind of step does to its server: each action of the scenario
// language is a unit of its own (a file step_*.go), registered once in stepRegistry.
type stepAction interface {
	// Execute changes srv, the step's server in a copy of the control plane, as the step does,
	// and says what it did that the routing does not show.
	Execute(srv *snapshot.Server, step Step) (stepDone, error)
}

// A planeKeeper is a stepAction that changes nothing: Apply returns the control plane as it
// was, and Execute is given its server to read.
type planeKeeper interface{ keepsPlane() }

// A killer is a stepAction whose server dies without cleaning up: Run shows its step in two
// phases, the first while the endpoint lease still lives (killed), then the steady state.
type killer interface {
	// killed is srv right after the kill.
	killed(srv *snapshot.Server)
}

// registeredStep is one kind of step: its action, its help, and its unit.
type registeredStep struct {
	StepKind
	unit stepAction
}

// stepRegistry is every kind of step, in the order help lists them. A new kind is a file
// with its unit, and its line here.
var stepRegistry = []registeredStep{
	{StepKind{ActionUpgrade, "graceful stop, then start at VERSION, keeping the server's flags (or with the --runtime-config given)", "upgrade:b=1.37,runtime-config=batch/v1=false", "upgrade:SERVER=VERSION[,runtime-config=...]"}, upgradeStep{}},
	{StepKind{ActionCrash, "SIGKILL: its identity lease stays until it expires (peers that proxy to it answer 503)", "crash:b", "crash:SERVER"}, crashStep{}},
	{StepKind{ActionStop, "SIGTERM: the identity lease is deleted (1.35+)", "stop:b", "stop:SERVER"}, stopStep{}},
	{StepKind{ActionStart, "start a crashed or stopped server again", "start:b", "start:SERVER"}, startStep{}},
	{StepKind{ActionRestart, "restart at the same version: a new identity lease holder on 1.35+, the same holder before", "restart:b", "restart:SERVER"}, restartStep{}},
	{StepKind{ActionGateOff, "restart with UnknownVersionInteroperabilityProxy=false", "gate-off:b", "gate-off:SERVER"}, gateOffStep{}},
	{StepKind{ActionDropPeerCA, "restart without --peer-ca-file: no proxy filter", "drop-peer-ca:b", "drop-peer-ca:SERVER"}, dropPeerCAStep{}},
	{StepKind{ActionPeerCAWrong, "restart with a --peer-ca-file that does not trust its peers: it learns no peer", "peer-ca-wrong:b", "peer-ca-wrong|peer-ca-right:SERVER"}, peerCAStep{trusts: false}},
	{StepKind{ActionPeerCARight, "restart with the right --peer-ca-file again", "peer-ca-right:b", ""}, peerCAStep{trusts: true}},
	{StepKind{ActionAdvertiseUnreachable, "restart with a peer-advertise address its peers cannot reach", "advertise-unreachable:b", "advertise-unreachable|advertise-reachable:SERVER"}, advertiseStep{reachable: false}},
	{StepKind{ActionAdvertiseReachable, "restart with a reachable peer-advertise address again", "advertise-reachable:b", ""}, advertiseStep{reachable: true}},
	{StepKind{ActionKeep, "change nothing (what a rolling upgrade does to a server already at the target)", "keep:b", ""}, keepStep{}},
}

// StepForms are the flag forms of the steps, for --step's help: "upgrade:SERVER=VERSION[,...]",
// "crash:SERVER", ...
func StepForms() []string {
	var out []string
	for _, r := range stepRegistry {
		if r.Form != "" {
			out = append(out, r.Form)
		}
	}
	return out
}

// StepKinds are every action of a step, in the order help lists them.
var StepKinds = func() []StepKind {
	out := make([]StepKind, len(stepRegistry))
	for i, r := range stepRegistry {
		out[i] = r.StepKind
	}
	return out
}()

// actions are the names of every action.
var actions = func() []string {
	out := make([]string, len(stepRegistry))
	for i, r := range stepRegistry {
		out[i] = r.Action
	}
	return out
}()

// unitOf is the unit of action (nil for an unknown one).
func unitOf(action string) stepAction {
	for _, r := range stepRegistry {
		if r.Action == action {
			return r.unit
		}
	}
	return nil
}

// stepDone is what a step did that the routing does not show: the notes for people (the
// configuration an upgraded server kept, and what of it the new version does not have), the
// configuration lost, and what the step assumed of its server (nil for nothing; a note says
// it too).
type stepDone struct {
	// server is the name of the step's server, as applyTo found it.
	server  string
	notes   []stepNote
	losses  []ConfigLoss
	assumed stepNote
}

// plannedStep is a step read once before it runs: its unit (nil for an unknown action), with
// what the unit needs of the step already resolved.
type plannedStep struct {
	Step
	unit stepAction
}

// planStep reads step once: its unit, and what an upgrade's unit needs of it (upgradeTarget).
func planStep(step Step) plannedStep {
	unit := unitOf(step.Action)
	if _, upgrade := unit.(upgradeStep); upgrade {
		unit = upgradeStep{to: readTarget(step)}
	}
	return plannedStep{Step: step, unit: unit}
}

// planSteps is planStep of each step, in order.
func planSteps(steps []Step) []plannedStep {
	out := make([]plannedStep, 0, len(steps))
	for _, st := range steps {
		out = append(out, planStep(st))
	}
	return out
}

// applyStep is Apply, plus what the step did that the routing does not show.
func applyStep(snap *snapshot.Snapshot, step Step) (*snapshot.Snapshot, stepDone, error) {
	return applyPlanned(snap, planStep(step))
}

// applyPlanned runs the step st on a copy of snap (on snap itself when its unit keeps the plane): the
// new state, and what the step did that the routing does not show, with the name of the
// server it found once.
func applyPlanned(snap *snapshot.Snapshot, st plannedStep) (*snapshot.Snapshot, stepDone, error) {
	if st.unit == nil {
		return nil, stepDone{}, fmt.Errorf("step %q: action %q is not one of %s", st.Step, st.Action, strings.Join(actions, ", "))
	}
	_, keeps := st.unit.(planeKeeper)
	next := snap
	if !keeps {
		next = clone(snap)
	}
	srv := next.Find(st.Server)
	if srv == nil {
		return nil, stepDone{}, noServer(snap, st.Step)
	}
	if !keeps {
		// Whether the default /apis is peer-aggregated was observed on the old process; the
		// new state decides it (mvp.AggregatesDiscovery), not the observation.
		srv.PeerProxy.PeerAggregatedDiscovery = nil
	}
	leaseBefore := srv.IdentityLease
	done, err := st.unit.Execute(srv, st.Step)
	done.server = srv.Name
	switch {
	case keeps:
		return snap, done, err
	case err != nil:
		return nil, stepDone{}, fmt.Errorf("step %q: %w", st.Step, err)
	}
	if mvp.RebuildsPeerCaches(leaseBefore, srv.IdentityLease) {
		rebuildPeerCaches(next)
	}
	// Served discovery documents describe the observed control plane, not a simulated one:
	// after any step they would be stale (every server's merged view depends on its peers).
	for i := range next.Servers {
		next.Servers[i].CoreAPI, next.Servers[i].APIs, next.Servers[i].DefaultAPIs = nil, nil, nil
	}
	recomputePeerAggregated(next)
	return next, done, nil
}

func noServer(snap *snapshot.Snapshot, step Step) error {
	return fmt.Errorf("step %q: no server %q (servers: %s)", step, step.Server, strings.Join(snap.ServerNames(), ", "))
}

// simulated is the kind of evidence a simulated step adds about topics.
func simulated(topics snapshot.EvidenceTopics) snapshot.EvidenceKind {
	return snapshot.EvidenceKind{Basis: snapshot.EvidenceSimulated, Topics: topics}
}
