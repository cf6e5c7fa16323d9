package preflight

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/peerdiscovery"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

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
		// What was not observed may be stated by the installer (mvp.StatedSource): a gate or
		// filter stated off is as much a finding as one observed off.
		gate, gateAssumed := mvp.GateOn(srv)
		filter, filterAssumed := mvp.FilterInstalled(srv)
		stated := mvp.StatedSource(srv)
		if stated != "" {
			ev = append(append([]string(nil), ev...), "stated: "+stated)
		}
		switch {
		case pp.GateEnabled != nil && !*pp.GateEnabled, pp.GateEnabled == nil && stated != "" && !gate && !gateAssumed:
			add(CheckGate, Warning, srv, "the Mixed Version Proxy feature gate is off: requests for APIs this server lacks get 404 during the upgrade",
				"start kube-apiserver with --feature-gates=UnknownVersionInteroperabilityProxy=true (on by default from 1.36)", ev...)
			continue
		case gateUnknownAndOffByDefault(srv):
			add(CheckGate, Warning, srv, fmt.Sprintf("gate state unknown; it is off by default on %s", v.MinorString()),
				"check /readyz?verbose for the peer-endpoint-reconciler-controller hook, or set --feature-gates=UnknownVersionInteroperabilityProxy=true", ev...)
		}
		if pp.FilterInstalled != nil && !*pp.FilterInstalled || pp.FilterInstalled == nil && stated != "" && !filter && !filterAssumed {
			add(CheckFilter, Warning, srv, "the peer proxy filter is not installed (no --peer-ca-file): this server never proxies",
				"set --peer-ca-file to the CA that signed every apiserver's serving certificate (which must name kubernetes.default.svc), plus --proxy-client-cert-file/--proxy-client-key-file", ev...)
		}
		// An estimated member of a server class sampled through a load balancer has no lease of
		// its own to read the address from: its address is unknown, not missing.
		estimated := srv.LB != nil && !srv.LB.Identified
		if srv.DiscoveryFormat != snapshot.DiscoveryProfiled && srv.PeerAdvertiseAddress == "" && !estimated {
			add(CheckAdvertise, Warning, srv, "no kubernetes.io/peer-advertise-address on its identity lease: peers cannot find it",
				"enable the feature gate; make --advertise-address and --secure-port an address peers can reach (1.34–1.37 publish those; --peer-advertise-ip/port do not change it, docs/behaviour.md §4.3)", ev...)
		}
		if mvp.CanAggregateDiscovery(v) && pp.PeerAggregatedDiscovery != nil && !*pp.PeerAggregatedDiscovery && (pp.FilterInstalled == nil || *pp.FilterInstalled) {
			add(CheckPeerDiscovery, Warning, srv, "peer-aggregated discovery is off: clients of this server do not see APIs only its peers serve",
				"peer-aggregated discovery needs the gate and --peer-ca-file; check that peers are learned ("+mvp.PeerDiscoverySyncErrorsMetric+")", ev...)
		}
	}
	return out
}

// discoveryFindings compares each server's recorded default /apis with the peer-aggregated
// document it should serve (pkg/peerdiscovery). It runs only when the start snapshot records
// served documents (a live or recorded snapshot; simulated steps have none). One blocking
// finding per server with stale or missing entries.
// The diff is returned for MVP031 (nil when it did not run).
func discoveryFindings(s *snapshot.Snapshot, evidence map[string]string) (out []Finding, rep *peerdiscovery.Report) {
	ran := false
	for i := range s.Servers {
		ran = ran || s.Servers[i].DefaultAPIs != nil
	}
	if !ran {
		return nil, nil
	}
	rep = peerdiscovery.Diff(s)
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
			hints = append(hints, "a stale peer-aggregated document outlives the last peer that served it (1.36+, docs/behaviour.md §11.5): any local discovery change (creating or updating a CRD) rebuilds it, as does a restart")
		}
		if len(missing) > 0 {
			msg = append(msg, fmt.Sprintf("does not advertise %d entr%s that it or a learned peer serves: %s", len(missing), plural(len(missing)), listSome(missing, 6)))
			if srv := s.Find(d.Name); srv != nil {
				causes := mvp.UnlearnedCauses(srv, peersOf(s, srv))
				hints = append(hints, fmt.Sprintf("it has not learned what its peers serve; most likely %s (to confirm: %s)", causes[0].Text, causes[0].Confirm))
			}
		}
		ev := []string{evidence[d.Name], fmt.Sprintf("default /apis ETag served %s, expected %s (merge of its own /apis with %s)", orNone(d.ServedETag), orNone(d.ExpectedETag), orNone(strings.Join(d.Peers, ", ")))}
		out = append(out, Finding{Check: CheckDiscovery.ID, Name: CheckDiscovery.Name, Severity: Blocking, Subject: d.Name,
			Message:  "peer-aggregated /apis " + strings.Join(msg, "; and "),
			Evidence: ev, Hint: strings.Join(hints, "; ") + " — `mvpctl discovery diff` lists every entry"})
	}
	return out, rep
}

// trafficFindings: replayed requests that use a removed API (MVP021), or that get 404 or 503
// on some apiserver at some step (MVP020), each naming its clients: a replayed client that
// fails is harm, whatever the window's rule.
func trafficFindings(tr *replay.Report, sim *simulate.Simulation) []Finding {
	var out []Finding
	ev := fmt.Sprintf("traffic %s (%s): %s", tr.Source, tr.Format, tr.Read())
	for i := range tr.GVRs {
		g := &tr.GVRs[i]
		if g.Removed {
			out = append(out, Finding{Check: CheckTrafficRemoved.ID, Name: CheckTrafficRemoved.Name, Severity: Blocking, Subject: g.GVR,
				Message:  fmt.Sprintf("%d request(s) use %s, which no apiserver serves after the last step; clients: %s", g.Requests, g.GVR, agentsOf(g)),
				Evidence: []string{ev, "profiles " + strings.Join(sim.Profiles, ", ")},
				Hint:     simulate.RemovedHint(sim, g.GVR, "migrate these clients to a served version of the API before upgrading")})
			continue
		}
		if g.AtRisk > 0 {
			steps := make([]string, len(g.AtRiskSteps))
			for i, s := range g.AtRiskSteps {
				steps[i] = fmt.Sprintf("%d (%s)", s, sim.Steps[s].Step)
			}
			out = append(out, Finding{Check: CheckTrafficFails.ID, Name: CheckTrafficFails.Name, Severity: Blocking, Subject: g.GVR,
				Message:  fmt.Sprintf("%d of %d request(s) for %s would get 404 or 503 on some apiserver at step(s) %s; clients: %s", g.AtRisk, g.Requests, g.GVR, strings.Join(steps, ", "), agentsOf(g)),
				Evidence: []string{ev},
				Hint:     "see MVP010/MVP011 of the same GVR for the servers, the steps and the fix"})
		} else if g.AlreadyFailing > 0 {
			out = append(out, alreadyFailingFinding(g, ev))
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

// alreadyFailingFinding: requests that fail during the upgrade only on servers that fail them
// at the start too are not harm from the upgrade, but they fail today: a warning naming the
// servers.
func alreadyFailingFinding(g *replay.GVRTraffic, ev string) Finding {
	return Finding{Check: CheckTrafficFails.ID, Name: CheckTrafficFails.Name, Severity: Warning, Subject: g.GVR,
		Message: fmt.Sprintf("%d of %d request(s) for %s already get 404 or 503 at the start on %s: they fail with or without the upgrade, which harms none of them; clients: %s",
			g.AlreadyFailing, g.Requests, g.GVR, strings.Join(g.FailingAtStart, ", "), agentsOf(g)),
		Evidence: []string{ev},
		Hint:     "find out why these clients call an API their apiservers do not answer (a client newer than the control plane, a missing --runtime-config entry); the upgrade itself does not break them"}
}

// peersOf is every other server that is srv's peer by the apiserver's rule (mvp.PeerOf).
func peersOf(s *snapshot.Snapshot, srv *snapshot.Server) []*snapshot.Server {
	var out []*snapshot.Server
	for i := range s.Servers {
		if p := &s.Servers[i]; p != srv && !mvp.PeerOf(srv, p).Excluded() {
			out = append(out, p)
		}
	}
	return out
}

// configLossFindings: an upgraded server keeps its --runtime-config, and an entry naming a
// group/version the new version no longer has is skipped at start-up (mvp.UnknownGroupVersionAtStartup):
// what its clients used is gone from that server.
// Its clients lose it on that server: blocking, unless replayed traffic shows none.
func configLossFindings(sim *simulate.Simulation, h harm) []Finding {
	var out []Finding
	for _, st := range sim.Steps {
		for _, l := range st.ConfigLosses {
			sev, why := h.gv(l.GroupVersion)
			ev := append([]string{"simulated from " + sim.Start}, h.evidence()...)
			out = append(out, Finding{Check: CheckConfigLoss.ID, Name: CheckConfigLoss.Name, Severity: sev, Subject: l.GroupVersion + "@" + l.Server,
				Step:     fmt.Sprintf("%d: %s", st.N, st.Step),
				Message:  fmt.Sprintf("%s keeps --runtime-config entry %s=%t, but %s has no %s: %s; %s", l.Server, l.GroupVersion, l.Enabled, l.Version, l.GroupVersion, mvp.UnknownGroupVersionAtStartup, why),
				Evidence: ev,
				Hint: fmt.Sprintf("before upgrading %s, remove %s=%t from its --runtime-config and move the clients of %s to a version %s serves",
					l.Server, l.GroupVersion, l.Enabled, l.GroupVersion, l.Version)})
		}
	}
	return out
}

// gateUnknownAndOffByDefault: the gate was not observed and the version's default is off.
func gateUnknownAndOffByDefault(srv *snapshot.Server) bool {
	on, assumed := mvp.GateOn(srv)
	return assumed && !on
}
