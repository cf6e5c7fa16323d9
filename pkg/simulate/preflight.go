package simulate

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/pkg/peerdiscovery"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// PreflightKind is the kind of a preflight report.
const PreflightKind = "PreflightReport"

// Severity of a finding.
type Severity string

const (
	Info     Severity = "info"
	Warning  Severity = "warning"
	Blocking Severity = "blocking"
)

// Check is one preflight check. IDs are stable: CI configurations and dashboards refer to them.
type Check struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Title string `json:"title"`
}

// The checks, in the order they run.
var (
	CheckReachable       = Check{"MVP001", "apiserver-reachable", "every apiserver answers"}
	CheckGate            = Check{"MVP002", "peer-proxy-gate", "the UnknownVersionInteroperabilityProxy gate is on"}
	CheckFilter          = Check{"MVP003", "peer-proxy-configured", "the peer proxy is configured (--peer-ca-file)"}
	CheckAdvertise       = Check{"MVP004", "peer-advertise-address", "the identity lease advertises a peer address"}
	CheckPeerDiscovery   = Check{"MVP005", "peer-aggregated-discovery", "peer-aggregated discovery is on (1.35+)"}
	CheckServedEveryStep = Check{"MVP010", "gvr-reachable-every-step", "every GVR served somewhere is reachable from every apiserver at every step"}
	CheckTrafficFails    = Check{"MVP020", "traffic-would-fail", "no replayed request would get 404 or 503"}
	CheckTrafficRemoved  = Check{"MVP021", "traffic-uses-removed-api", "no replayed request uses an API the target removes"}
	CheckTrafficInput    = Check{"MVP022", "traffic-readable", "every traffic line is readable"}
	CheckDiscovery       = Check{"MVP030", "discovery-stale-or-missing", "peer-aggregated /apis lists what is served, and all of it (recorded snapshots)"}
)

// Checks lists every check.
var Checks = []Check{CheckReachable, CheckGate, CheckFilter, CheckAdvertise, CheckPeerDiscovery,
	CheckServedEveryStep, CheckTrafficFails, CheckTrafficRemoved, CheckTrafficInput, CheckDiscovery}

// Finding is one problem a check found.
type Finding struct {
	Check    string   `json:"check"`
	Name     string   `json:"name"`
	Severity Severity `json:"severity"`
	// Subject is what the finding is about: a server, a GVR on a server, a user agent.
	Subject string `json:"subject"`
	Step    string `json:"step,omitempty"`
	Message string `json:"message"`
	// Evidence says where the facts come from: which server, which document, when.
	Evidence []string `json:"evidence"`
	Hint     string   `json:"hint"`
}

// PreflightReport is the result of all checks.
type PreflightReport struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Scenario echoes what was checked: start, steps, target.
	Scenario ScenarioEcho `json:"scenario"`
	Checks   []Check      `json:"checks"`
	Findings []Finding    `json:"findings"`
	Summary  Summary      `json:"summary"`
	// Simulation and Traffic hold the underlying results.
	Simulation *Simulation    `json:"simulation,omitempty"`
	Traffic    *TrafficReport `json:"traffic,omitempty"`
}

// ScenarioEcho spells out current → target, so nobody has to guess what was checked.
type ScenarioEcho struct {
	Start    string          `json:"start"`
	TakenAt  time.Time       `json:"takenAt,omitempty"`
	Servers  []ServerVersion `json:"servers"`
	Target   string          `json:"target,omitempty"`
	Steps    []string        `json:"steps"`
	Profiles []string        `json:"profiles,omitempty"`
	Partial  bool            `json:"partial"`
}

// Summary counts findings by severity; Result is pass, warning or blocking.
type Summary struct {
	Blocking int    `json:"blocking"`
	Warning  int    `json:"warning"`
	Info     int    `json:"info"`
	Result   string `json:"result"`
}

// PreflightInput is what preflight checks.
type PreflightInput struct {
	Start  *snapshot.Snapshot
	Steps  []Step
	Target string
	// Traffic is optional.
	Traffic       *TrafficReader
	TrafficSource string
	TrafficFormat string
}

// Preflight runs the scenario and every check.
func Preflight(in PreflightInput) (*PreflightReport, error) {
	sim, err := Run(in.Start, in.Steps)
	if err != nil {
		return nil, err
	}
	rep := &PreflightReport{APIVersion: snapshot.APIVersion, Kind: PreflightKind, Checks: Checks, Findings: []Finding{}, Simulation: sim}
	rep.Scenario = ScenarioEcho{Start: in.Start.Source, TakenAt: in.Start.TakenAt, Target: in.Target, Profiles: sim.Profiles,
		Partial: in.Start.Partial(), Steps: []string{}}
	for _, s := range in.Start.Servers {
		rep.Scenario.Servers = append(rep.Scenario.Servers, ServerVersion{Name: s.Name, Version: s.Version})
	}
	for _, st := range in.Steps {
		rep.Scenario.Steps = append(rep.Scenario.Steps, st.String())
	}
	evidence := startEvidence(in.Start)
	rep.Findings = append(rep.Findings, configurationFindings(in.Start, evidence)...)
	if found, ran := discoveryFindings(in.Start, evidence); ran {
		rep.Findings = append(rep.Findings, found...)
	} else {
		rep.Checks = withoutCheck(rep.Checks, CheckDiscovery)
	}
	rep.Findings = append(rep.Findings, routingFindings(sim)...)
	if in.Traffic != nil {
		tr, err := Replay(sim, in.Traffic, in.TrafficSource, in.TrafficFormat)
		if err != nil {
			return nil, err
		}
		rep.Traffic = tr
		rep.Findings = append(rep.Findings, trafficFindings(tr, sim)...)
	}
	for _, f := range rep.Findings {
		switch f.Severity {
		case Blocking:
			rep.Summary.Blocking++
		case Warning:
			rep.Summary.Warning++
		default:
			rep.Summary.Info++
		}
	}
	rep.Summary.Result = "pass"
	if rep.Summary.Warning > 0 {
		rep.Summary.Result = "warning"
	}
	if rep.Summary.Blocking > 0 {
		rep.Summary.Result = "blocking"
	}
	return rep, nil
}

// startEvidence describes where each server's data came from.
func startEvidence(s *snapshot.Snapshot) map[string]string {
	ev := map[string]string{}
	when := "undated"
	if !s.TakenAt.IsZero() {
		when = s.TakenAt.UTC().Format(time.RFC3339)
	}
	for _, srv := range s.Servers {
		doc := "non-peer discovery (" + orNone(srv.DiscoveryFormat) + ")"
		if srv.DiscoveryFormat == snapshot.DiscoveryProfiled {
			doc = "profile " + srv.Version + " (discovery of a real default kube-apiserver)"
		}
		ev[srv.Name] = fmt.Sprintf("server %s (%s, %s) at %s: %s, %s", srv.Name, orNone(srv.ID), orNone(srv.Version), orNone(srv.Endpoint), doc, "snapshot "+when+" from "+orNone(s.Source))
	}
	return ev
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func configurationFindings(s *snapshot.Snapshot, evidence map[string]string) []Finding {
	var out []Finding
	add := func(c Check, sev Severity, srv *snapshot.Server, msg, hint string, extra ...string) {
		out = append(out, Finding{Check: c.ID, Name: c.Name, Severity: sev, Subject: srv.Name, Message: msg,
			Evidence: append([]string{evidence[srv.Name]}, extra...), Hint: hint})
	}
	for i := range s.Servers {
		srv := &s.Servers[i]
		if !srv.Reachable {
			add(CheckReachable, Blocking, srv, "apiserver could not be read: "+srv.Error,
				"fix connectivity or credentials to this apiserver (or remove it from the control plane) before upgrading: its routing cannot be predicted")
			continue
		}
		pp := srv.PeerProxy
		v, _ := snapshot.ParseVersion(srv.Version)
		ev := pp.Evidence
		switch {
		case pp.GateEnabled != nil && !*pp.GateEnabled:
			add(CheckGate, Warning, srv, "the Mixed Version Proxy feature gate is off: requests for APIs this server lacks get 404 during the upgrade",
				"start kube-apiserver with --feature-gates=UnknownVersionInteroperabilityProxy=true (on by default from 1.36)", ev...)
			continue
		case pp.GateEnabled == nil && v.Minor < 36:
			add(CheckGate, Warning, srv, fmt.Sprintf("gate state unknown; it is off by default on %s", v.MinorString()),
				"check /readyz?verbose for the peer-endpoint-reconciler-controller hook, or set --feature-gates=UnknownVersionInteroperabilityProxy=true", ev...)
		}
		if pp.FilterInstalled != nil && !*pp.FilterInstalled {
			add(CheckFilter, Warning, srv, "the peer proxy filter is not installed (no --peer-ca-file): this server never proxies",
				"set --peer-ca-file to the CA that signed every apiserver's serving certificate (which must name kubernetes.default.svc), plus --proxy-client-cert-file/--proxy-client-key-file", ev...)
		}
		if srv.DiscoveryFormat != snapshot.DiscoveryProfiled && srv.PeerAdvertiseAddress == "" {
			add(CheckAdvertise, Warning, srv, "no kubernetes.io/peer-advertise-address on its identity lease: peers cannot find it",
				"enable the feature gate; set --peer-advertise-ip and --peer-advertise-port (both, or neither) to an address peers can reach", ev...)
		}
		if v.Minor >= 35 && pp.PeerAggregatedDiscovery != nil && !*pp.PeerAggregatedDiscovery && (pp.FilterInstalled == nil || *pp.FilterInstalled) {
			add(CheckPeerDiscovery, Warning, srv, "peer-aggregated discovery is off: clients of this server do not see APIs only its peers serve",
				"peer-aggregated discovery needs the gate and --peer-ca-file; check that peers are learned (apiserver_peer_discovery_sync_errors_total)", ev...)
		}
	}
	return out
}

// discoveryFindings compares each server's recorded default /apis with the peer-aggregated
// document it should serve (pkg/peerdiscovery). It runs only when the start snapshot records
// served documents (a live or recorded snapshot; simulated steps have none). One blocking
// finding per server with stale or missing entries.
func discoveryFindings(s *snapshot.Snapshot, evidence map[string]string) (out []Finding, ran bool) {
	for i := range s.Servers {
		ran = ran || s.Servers[i].DefaultAPIs != nil
	}
	if !ran {
		return nil, false
	}
	rep := peerdiscovery.Diff(s)
	for _, d := range rep.Servers {
		var stale, missing []string
		for _, e := range d.Entries {
			switch e.Class {
			case peerdiscovery.ClassStale:
				stale = append(stale, e.Name())
			case peerdiscovery.ClassMissing:
				missing = append(missing, e.Name()+" (served by "+strings.Join(e.ServedBy, ", ")+")")
			}
		}
		if len(stale)+len(missing) == 0 {
			continue
		}
		var msg, hints []string
		if len(stale) > 0 {
			msg = append(msg, fmt.Sprintf("advertises %d entr%s no reachable apiserver serves (clients following them get 404): %s", len(stale), plural(len(stale)), listSome(stale, 6)))
			hints = append(hints, "a stale peer-aggregated document outlives the last peer that served it (1.36+, spec §11.5): any local discovery change (creating or updating a CRD) rebuilds it, as does a restart")
		}
		if len(missing) > 0 {
			msg = append(msg, fmt.Sprintf("does not advertise %d entr%s that it or a learned peer serves: %s", len(missing), plural(len(missing)), listSome(missing, 6)))
			hints = append(hints, "its peer discovery is behind: a peer identity-lease event (a peer restart) makes it fetch again; check apiserver_peer_discovery_sync_errors_total and the peer CA/proxy client certificates")
		}
		ev := []string{evidence[d.Name], fmt.Sprintf("default /apis ETag served %s, expected %s (merge of its own /apis with %s)", orNone(d.ServedETag), orNone(d.ExpectedETag), orNone(strings.Join(d.Peers, ", ")))}
		out = append(out, Finding{Check: CheckDiscovery.ID, Name: CheckDiscovery.Name, Severity: Blocking, Subject: d.Name,
			Message:  "peer-aggregated /apis " + strings.Join(msg, "; and "),
			Evidence: ev, Hint: strings.Join(hints, "; ") + " — `mvpctl discovery diff` lists every entry"})
	}
	return out, true
}

func plural(n int) string {
	if n == 1 {
		return "y"
	}
	return "ies"
}

func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s, … (%d more)", strings.Join(items[:n], ", "), len(items)-n)
}

func withoutCheck(cs []Check, c Check) []Check {
	var out []Check
	for _, x := range cs {
		if x.ID != c.ID {
			out = append(out, x)
		}
	}
	return out
}

// routingFindings turns the simulation's at-risk cells into blocking findings.
func routingFindings(sim *Simulation) []Finding {
	var out []Finding
	for _, r := range sim.AtRisk {
		status := fmt.Sprint(r.Status)
		if r.Unavailable != "" {
			status += " (" + r.Unavailable + ")"
		}
		hint := "upgrade so that some reachable server serves it at every step (change --order), or keep its clients off until the upgrade completes"
		if r.Outcome == route.Unavailable {
			hint = "a crashed peer still holds its identity lease: restart it, or delete its lease (kube-system/" + "apiserver-…) once it is gone for good"
		}
		out = append(out, Finding{Check: CheckServedEveryStep.ID, Name: CheckServedEveryStep.Name, Severity: Blocking,
			Subject: r.Server + " " + r.GVR, Step: fmt.Sprintf("%d: %s", r.StepN, r.Step),
			Message:  fmt.Sprintf("at step %d (%s) %s answers %s for %s, which %s serve(s)", r.StepN, r.Step, r.Server, status, r.GVR, strings.Join(r.ServedBy, ", ")),
			Evidence: []string{r.Reason, "simulated from " + sim.Start},
			Hint:     hint})
	}
	return out
}

func trafficFindings(tr *TrafficReport, sim *Simulation) []Finding {
	var out []Finding
	ev := fmt.Sprintf("traffic %s (%s): %d requests", tr.Source, tr.Format, tr.Requests)
	for _, g := range tr.GVRs {
		if g.Removed {
			out = append(out, Finding{Check: CheckTrafficRemoved.ID, Name: CheckTrafficRemoved.Name, Severity: Blocking, Subject: g.GVR,
				Message:  fmt.Sprintf("%d request(s) use %s, which no apiserver serves after the last step", g.Requests, g.GVR),
				Evidence: []string{ev, "profiles " + strings.Join(sim.Profiles, ", ")},
				Hint:     "migrate these clients to a served version of the API before upgrading (see the user agents below)"})
			continue
		}
		if g.AtRisk > 0 {
			steps := make([]string, len(g.AtRiskSteps))
			for i, s := range g.AtRiskSteps {
				steps[i] = fmt.Sprintf("%d (%s)", s, sim.Steps[s].Step)
			}
			out = append(out, Finding{Check: CheckTrafficFails.ID, Name: CheckTrafficFails.Name, Severity: Blocking, Subject: g.GVR,
				Message:  fmt.Sprintf("%d of %d request(s) for %s would get 404 or 503 on some apiserver at step(s) %s", g.AtRisk, g.Requests, g.GVR, strings.Join(steps, ", ")),
				Evidence: []string{ev},
				Hint:     "see MVP010 for the servers and steps; change the upgrade order or enable the peer proxy on every server"})
		}
	}
	var agents []string
	for _, a := range tr.UserAgents {
		if a.AtRisk > 0 && len(agents) < 10 {
			agents = append(agents, fmt.Sprintf("%s (%d)", a.UserAgent, a.AtRisk))
		}
	}
	if len(agents) > 0 {
		for i := range out {
			out[i].Evidence = append(out[i].Evidence, "user agents at risk: "+strings.Join(agents, ", "))
		}
	}
	if tr.Malformed > 0 {
		out = append(out, Finding{Check: CheckTrafficInput.ID, Name: CheckTrafficInput.Name, Severity: Warning, Subject: tr.Source,
			Message:  fmt.Sprintf("%d line(s) could not be read and were skipped", tr.Malformed),
			Evidence: tr.MalformedExamples,
			Hint:     "--requests takes one METHOD PATH a line; --audit-log takes audit.k8s.io/v1 Event JSON lines (gzip accepted)"})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Check < out[j].Check })
	return out
}

// ExitCode maps a report to the documented exit code: 0 pass, 2 warnings only, 3 blocking.
// failOn is "warning" (default), "blocking" or "never".
func (r *PreflightReport) ExitCode(failOn string) int {
	switch {
	case failOn == "never":
		return 0
	case r.Summary.Blocking > 0:
		return 3
	case r.Summary.Warning > 0 && failOn == "warning":
		return 2
	}
	return 0
}
