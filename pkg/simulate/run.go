package simulate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/basis"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// SimulationKind is the kind of a simulation report.
const SimulationKind = "Simulation"

// Simulation is the routing at every step of a scenario.
type Simulation struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// RestsOn is what the simulation rests on besides observation, to be read first: the
	// provisional profiles used, the configuration stated rather than observed (the
	// installer's, --proxy=configured), what it assumed (how servers started from profiles
	// have their peer proxy set up), and what of the start was not read.
	basis.RestsOn
	// Start says where the control plane started (snapshot source or profiles).
	Start string `json:"start"`
	// Profiles lists the exact versions of the profiles used, as source evidence.
	Profiles []string     `json:"profiles,omitempty"`
	Steps    []StepResult `json:"steps"`
	// AtRisk lists, for every step, each server whose outcome for a GVR that is still served
	// somewhere is 404 or 503: the rows an operator must act on.
	AtRisk []Risk `json:"atRisk"`
	// Removed lists GVRs served at the start and by no server at the end.
	Removed []string `json:"removed,omitempty"`
	// RemovedFrom names, for each removed GVR, the servers that served it at the start.
	RemovedFrom map[string][]string `json:"removedFrom,omitempty"`
	// RuntimeConfigs is each observed server's --runtime-config as inferred from what it
	// serves at the start: what an upgrade keeps.
	RuntimeConfigs []ObservedConfig `json:"runtimeConfigs,omitempty"`
	// StatedConfigs is each server's configuration as its installer states it (kubeadm-config,
	// a static pod manifest), with where the server disagrees: what an upgrade starts with.
	StatedConfigs []StatedConfig `json:"statedConfigs,omitempty"`
	// Filter is the --resource/--group filter the routing tables, AtRisk and Removed were
	// narrowed by, when one was given (Narrow).
	Filter string `json:"filter,omitempty"`
}

// StepResult is the control plane and its routing after one step. Step 0 is the start.
type StepResult struct {
	N       int                   `json:"n"`
	Step    string                `json:"step"`
	Servers []route.ServerSummary `json:"servers"`
	Table   route.RoutingTable    `json:"routes"`
	// Phase says which part of the step's aftermath this is, when it has several (a crash:
	// first the endpoint lease lives, then it has expired). Both phases have the step's N.
	Phase string `json:"phase,omitempty"`
	// Notes say what the step did that the routing does not show (the configuration an
	// upgraded server kept, and what of it the new version does not have).
	Notes []string `json:"notes,omitempty"`
	// ConfigLosses are --runtime-config entries an upgraded server keeps that its new version
	// does not have.
	ConfigLosses []ConfigLoss `json:"configLosses,omitempty"`

	snap   *snapshot.Snapshot
	router *route.Router
}

// Snapshot is the control plane at this moment of the simulation.
func (r *StepResult) Snapshot() *snapshot.Snapshot { return r.snap }

// Router decides requests on Snapshot.
func (r *StepResult) Router() *route.Router { return r.router }

// Risk is one server failing a request for a GVR that some server still serves.
type Risk struct {
	StepN       int                `json:"step"`
	Step        string             `json:"stepName"`
	GVR         string             `json:"gvr"`
	Server      string             `json:"server"`
	Outcome     mvp.Outcome        `json:"outcome"`
	Status      int                `json:"status"`
	Unavailable mvp.Unavailable503 `json:"unavailable,omitempty"`
	// ServedBy lists the servers whose own discovery lists the GVR at that step (reachable or
	// not).
	ServedBy []string `json:"servedBy"`
	Reason   string   `json:"reason"`
}

// Run applies steps to start in order and evaluates the routing after each.
func Run(start *snapshot.Snapshot, steps []Step) (*Simulation, error) {
	if err := checkStepCount(len(steps)); err != nil {
		return nil, err
	}
	plan := planSteps(steps)
	if err := checkCost(estimateCost(start, plan)); err != nil {
		return nil, err
	}
	sim := &Simulation{APIVersion: report.APIVersion, Kind: SimulationKind, Start: start.Source, AtRisk: []Risk{},
		RestsOn: basis.OfSnapshot(start)}
	sim.Steps = append(sim.Steps, evaluate(0, "start", start))
	cur := withInferredResources(start, sim.Steps[0].router)
	sim.addStartConfigs(start)
	// A server newer than the rules mvpctl knows is routed by the newest rules it knows.
	sim.Assumptions = append(sim.Assumptions, mvp.Assumptions(start)...)
	cur, err := sim.runSteps(cur, plan)
	if err != nil {
		return nil, err
	}
	for _, s := range sim.Steps {
		sim.AtRisk = append(sim.AtRisk, risks(s)...)
	}
	sim.Profiles = profilesUsed(start, plan)
	sim.Provisional = profile.ProvisionalOf(sim.Profiles)
	sim.Removed, sim.RemovedFrom = removed(sim.Steps[0].snap, cur)
	return sim, nil
}

// addStartConfigs records what the start's servers run with: the runtime configuration each
// reachable observed server serves, each stated configuration against the observed one, and
// the assumed and stated evidence, each line with the servers it holds for.
func (sim *Simulation) addStartConfigs(start *snapshot.Snapshot) {
	unobservedBy := map[string][]string{} // evidence → servers, in first-seen order
	var unobserved []string
	stated := map[string]bool{} // evidence stated, not assumed
	for i := range start.Servers {
		srv := &start.Servers[i]
		c := configOf(srv)
		if srv.Reachable && srv.DiscoveryFormat != snapshot.DiscoveryProfiled {
			sim.RuntimeConfigs = append(sim.RuntimeConfigs, *c.observed)
		}
		pp := srv.PeerProxy
		if sc := c.stated; sc != nil {
			sim.StatedConfigs = append(sim.StatedConfigs, *sc)
			pp.Evidence, pp.EvidenceKinds = pp.CopyEvidence()
			pp.AddEvidence(snapshot.EvidenceKind{Basis: snapshot.EvidenceStated}, sc.line())
		}
		for j, ev := range pp.Evidence {
			switch pp.KindOf(j).Basis {
			case snapshot.EvidenceStated:
				stated[ev] = true
			case snapshot.EvidenceAssumed:
			default:
				continue
			}
			if unobservedBy[ev] == nil {
				unobserved = append(unobserved, ev)
			}
			unobservedBy[ev] = append(unobservedBy[ev], srv.Name)
		}
	}
	for _, ev := range unobserved {
		line := strings.Join(unobservedBy[ev], ", ") + ": " + ev
		if stated[ev] {
			sim.Stated = append(sim.Stated, line)
		} else {
			sim.Assumptions = append(sim.Assumptions, line)
		}
	}
}

// runSteps applies each step to cur and evaluates the result (a crash twice: while its
// endpoint lease lives, then after); what the steps assumed is added, each with its servers.
// It returns the last state.
func (sim *Simulation) runSteps(cur *snapshot.Snapshot, steps []plannedStep) (*snapshot.Snapshot, error) {
	stepAssumed := map[string][]string{} // what a step assumed → servers, in first-seen order
	var stepAssumptions []string
	for i, st := range steps {
		next, done, err := applyPlanned(cur, st)
		if err != nil {
			return nil, err
		}
		kill, killed := st.unit.(killer)
		if killed {
			sim.Steps = append(sim.Steps, crashWindowStep(i+1, st.String(), next, done.server, kill))
		}
		cur = next
		res := evaluate(i+1, st.String(), cur)
		res.Notes, res.ConfigLosses = wordNotes(done.notes), done.losses
		if done.assumed != nil {
			what := done.assumed.words()
			if stepAssumed[what] == nil {
				stepAssumptions = append(stepAssumptions, what)
			}
			stepAssumed[what] = append(stepAssumed[what], done.server)
		}
		if killed {
			res.Phase = fmt.Sprintf("from %s after the kill, until an apiserver starts or stops (then peers drop it: 404)", mvp.EndpointLeaseTTL)
		}
		sim.Steps = append(sim.Steps, res)
	}
	for _, what := range stepAssumptions {
		sim.Assumptions = append(sim.Assumptions, strings.Join(stepAssumed[what], ", ")+": "+what)
	}
	return cur, nil
}

// crashWindowStep is step n, a crash, during the first EndpointLeaseTTL after the kill: the
// endpoint lease still lives. next is the state after the crash of its server named server.
func crashWindowStep(n int, name string, next *snapshot.Snapshot, server string, kill killer) StepResult {
	window := clone(next)
	kill.killed(window.Find(server))
	res := evaluate(n, name, window)
	res.Phase = fmt.Sprintf("0–%s after the kill: its endpoint lease lives, peers dial it and fail", mvp.EndpointLeaseTTL)
	res.Notes = append(res.Notes, rebuildExitNotes(window)...)
	return res
}

// profilesUsed are the profiles a run used, sorted: those the start was built from, and those
// upgrades took.
func profilesUsed(start *snapshot.Snapshot, steps []plannedStep) []string {
	profiles := map[string]bool{}
	for _, srv := range start.Servers {
		if p, err := profile.Lookup(srv.Version); err == nil && srv.DiscoveryFormat == snapshot.DiscoveryProfiled {
			profiles[p.Version.String()] = true
		}
	}
	for _, st := range steps {
		if p, ok := targetProfile(st); ok {
			profiles[p.Version.String()] = true
		}
	}
	var out []string
	for p := range profiles {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func evaluate(n int, name string, snap *snapshot.Snapshot) StepResult {
	r := route.NewRouter(snap)
	t := r.Table(false)
	return StepResult{N: n, Step: name, Servers: t.Servers, Table: t, snap: snap, router: r}
}

// withInferredResources records, for every server that could not be read and recorded
// nothing, what the router infers it serves (route.Router.InferredResources): each step
// recomputes the peer-aggregated views it was inferred from (recomputePeerAggregated), which
// would otherwise lose what only the dead server served, row and all.
func withInferredResources(snap *snapshot.Snapshot, r *route.Router) *snapshot.Snapshot {
	out := snap
	for i := range snap.Servers {
		if rs := r.InferredResources(snap.Servers[i].Name); len(rs) > 0 {
			if out == snap {
				out = clone(snap)
			}
			out.Servers[i].Resources = rs
		}
	}
	return out
}

// risks lists the not-found and unavailable cells of rows whose GVR some server still serves,
// but for an aggregated APIService that is not available, which every step answers alike.
func risks(s StepResult) []Risk {
	var out []Risk
	for _, row := range s.Table.Rows {
		if len(row.ServedBy) == 0 {
			continue
		}
		for _, c := range row.Cells {
			if c.Outcome != mvp.NotFound && c.Outcome != mvp.Unavailable {
				continue
			}
			if c.Unavailable == mvp.APIServiceUnavailable {
				continue // an unavailable APIService, not the upgrade's doing: preflight MVP050
			}
			d, err := s.router.Decide(c.Server, mustList(row.GVR))
			reason := ""
			if err == nil {
				reason = d.Reason
			}
			out = append(out, Risk{StepN: s.N, Step: s.Step, GVR: row.Name, Server: c.Server, Outcome: c.Outcome,
				Status: *c.Status, Unavailable: c.Unavailable, ServedBy: servedByUp(s, row.ServedBy), Reason: reason})
		}
	}
	return out
}

// servedByUp are the servers of servedBy that are up at step s: a server that is down serves
// nothing at that step, whatever its discovery listed before.
func servedByUp(s StepResult, servedBy []string) []string {
	up := []string{}
	for _, name := range servedBy {
		for _, srv := range s.Table.Servers {
			if srv.Name == name && srv.Reachable {
				up = append(up, name)
			}
		}
	}
	return up
}

func mustList(g snapshot.GVR) route.Request {
	req, err := route.ParseRequest("GET", route.ListPath(g))
	if err != nil {
		panic(fmt.Sprintf("list path of %s: %v", g, err)) // every GVR has a parsable list path
	}
	return req
}

// removed lists GVRs some server served at the start that no server serves at the end.
func removed(first, last *snapshot.Snapshot) ([]string, map[string][]string) {
	end := map[snapshot.GVR]bool{}
	for _, s := range last.Servers {
		for _, r := range s.Resources {
			end[r.GVR()] = true
		}
	}
	from := map[string][]string{}
	var out []string
	for _, s := range first.Servers {
		for _, r := range s.Resources {
			if g := r.GVR(); !end[g] {
				if from[g.String()] == nil {
					out = append(out, g.String())
				}
				from[g.String()] = append(from[g.String()], s.Name)
			}
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		from = nil
	}
	return out, from
}
