package simulate

import (
	"fmt"
	"sort"

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
}

// StepResult is the control plane and its routing after one step. Step 0 is the start.
type StepResult struct {
	N       int                   `json:"n"`
	Step    string                `json:"step"`
	Servers []route.ServerSummary `json:"servers"`
	Table   route.RoutingTable    `json:"routes"`

	snap   *snapshot.Snapshot
	router *route.Router
}

// Risk is one server failing a request for a GVR that some server still serves.
type Risk struct {
	StepN       int           `json:"step"`
	Step        string        `json:"stepName"`
	GVR         string        `json:"gvr"`
	Server      string        `json:"server"`
	Outcome     route.Outcome `json:"outcome"`
	Status      int           `json:"status"`
	Unavailable string        `json:"unavailable,omitempty"`
	// ServedBy lists the servers whose own discovery lists the GVR at that step (reachable or
	// not).
	ServedBy []string `json:"servedBy"`
	Reason   string   `json:"reason"`
}

// Run applies steps to start in order and evaluates the routing after each.
func Run(start *snapshot.Snapshot, steps []Step) (*Simulation, error) {
	sim := &Simulation{APIVersion: report.APIVersion, Kind: SimulationKind, Start: start.Source, AtRisk: []Risk{}}
	cur := start
	sim.Steps = append(sim.Steps, evaluate(0, "start", cur))
	for i, st := range steps {
		next, err := Apply(cur, st)
		if err != nil {
			return nil, err
		}
		cur = next
		sim.Steps = append(sim.Steps, evaluate(i+1, st.String(), cur))
	}
	profiles := map[string]bool{}
	for _, s := range sim.Steps {
		for _, srv := range s.snap.Servers {
			if srv.DiscoveryFormat == snapshot.DiscoveryProfiled {
				profiles[srv.Version] = true
			}
		}
		sim.AtRisk = append(sim.AtRisk, risks(s)...)
	}
	for p := range profiles {
		sim.Profiles = append(sim.Profiles, p)
	}
	sort.Strings(sim.Profiles)
	sim.Removed = removed(sim.Steps[0].snap, cur)
	return sim, nil
}

func evaluate(n int, name string, snap *snapshot.Snapshot) StepResult {
	r := route.NewRouter(snap)
	t := r.Table(false)
	return StepResult{N: n, Step: name, Servers: t.Servers, Table: t, snap: snap, router: r}
}

// risks lists the not-found and unavailable cells of rows whose GVR some server still serves.
func risks(s StepResult) []Risk {
	var out []Risk
	for _, row := range s.Table.Rows {
		if len(row.ServedBy) == 0 {
			continue
		}
		for _, c := range row.Cells {
			if c.Outcome != route.NotFound && c.Outcome != route.Unavailable {
				continue
			}
			d, err := s.router.Decide(c.Server, mustList(row.GVR))
			reason := ""
			if err == nil {
				reason = d.Reason
			}
			out = append(out, Risk{StepN: s.N, Step: s.Step, GVR: row.Name, Server: c.Server, Outcome: c.Outcome,
				Status: *c.Status, Unavailable: c.Unavailable, ServedBy: row.ServedBy, Reason: reason})
		}
	}
	return out
}

func mustList(g snapshot.GVR) route.Request {
	req, err := route.ParseRequest("GET", route.ListPath(g))
	if err != nil {
		panic(fmt.Sprintf("list path of %s: %v", g, err)) // every GVR has a parsable list path
	}
	return req
}

// removed lists GVRs some server served at the start that no server serves at the end.
func removed(first, last *snapshot.Snapshot) []string {
	end := map[snapshot.GVR]bool{}
	for _, s := range last.Servers {
		for _, r := range s.Resources {
			end[r.GVR()] = true
		}
	}
	seen := map[snapshot.GVR]bool{}
	var out []string
	for _, s := range first.Servers {
		for _, r := range s.Resources {
			if g := r.GVR(); !end[g] && !seen[g] {
				seen[g] = true
				out = append(out, g.String())
			}
		}
	}
	sort.Strings(out)
	return out
}

// UpgradePlan is a rolling upgrade of every server to version to, one at a time in order (the
// snapshot's order when empty): each server is stopped gracefully, then started at the new
// version — the window while it is down is a step of its own.
func UpgradePlan(snap *snapshot.Snapshot, to string, order []string) ([]Step, error) {
	if _, err := LookupProfile(to); err != nil {
		return nil, err
	}
	if len(order) == 0 {
		order = snap.ServerNames()
	}
	seen := map[string]bool{}
	var steps []Step
	for _, name := range order {
		if snap.Find(name) == nil {
			return nil, fmt.Errorf("--order: no server %q in the control plane (servers: %v)", name, snap.ServerNames())
		}
		if seen[name] {
			return nil, fmt.Errorf("--order: server %q listed twice", name)
		}
		seen[name] = true
		steps = append(steps, Step{Action: ActionStop, Server: name}, Step{Action: ActionUpgrade, Server: name, To: to})
	}
	return steps, nil
}
