package route

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// decideDiscovery is steps 6–9 of the DISC eras (1.33+).
func (r *Router) decideDiscovery(v *serverView, req Request, gvr gvrKey, d *Decision, st *steps) {
	// The quiet checks below keep a routing table's most common cells (local; 404 for a
	// never-proxied group/version) from formatting what only explain prints.
	if v.local.has(gvr.id) {
		if !st.quiet {
			st.add("%s is in the server's local discovery cache", gvr)
			st.say(mvp.RuleDiscoveryRouting, "%s serves %s itself (its own discovery lists it), so its own handler answers", v.srv.Name, gvr)
		}
		r.localOutcome(v, req, gvr, d, st, "served by this server", "")
		return
	}
	if !st.quiet {
		st.add("%s is not in the server's local discovery cache", gvr)
		st.say(mvp.RuleDiscoveryRouting, "%s does not serve %s itself (its own discovery does not list it), so it looks for a peer that does", v.srv.Name, r.gvOrGVR(v, gvr))
	}
	if why, ok := r.excluded.of(r.gvrs, gvr); ok && v.era.ExcludesCRDsAndAPIServices() {
		if st.quiet {
			r.localOutcome(v, req, gvr, d, st, "", "")
			return
		}
		st.add("%s belongs to %s: excluded from peers' discovery (%s), never proxied", gvr.GroupVersion(), why, mvp.RuleExclusion.Versions())
		st.say(mvp.RuleExclusion, "%s belongs to %s: such group/versions are never proxied", gvr.GroupVersion(), why)
		if r.aggregatedFor(req) == nil { // the aggregator's answer says what to check instead
			d.Plain.WhyNot = append(d.Plain.WhyNot, fmt.Sprintf("%s must serve %s itself: %s's group/versions are never proxied", v.srv.Name, gvr, why))
		}
		r.localOutcome(v, req, gvr, d, st, fmt.Sprintf("%s is %s's group/version, which is never proxied", gvr.GroupVersion(), why),
			fmt.Sprintf("%s is %s's group/version, which is never proxied", gvr.GroupVersion(), why))
		return
	}
	var cands, unlearned []*serverView
	for _, p := range r.views {
		if p == v {
			continue
		}
		switch why := mvp.Learns(v.srv, p.srv); why {
		case "":
			if r.peerAdvertises(v, p, gvr) {
				cands = append(cands, p)
			}
		case mvp.PeerNotTrusted, mvp.PeerAdvertiseUnreachable:
			if r.peerAdvertises(v, p, gvr) {
				st.add("peer %s serves %s, but %s has not learned it: %s", p.srv.Name, gvr, v.srv.Name, why)
				unlearned = append(unlearned, p)
			}
		default:
			notAPeerStep(p, why, st)
		}
	}
	cands, unlearned = r.learnedCandidates(v, gvr, cands, unlearned, d, st)
	if len(cands) == 0 && len(unlearned) > 0 {
		peers := make([]*snapshot.Server, len(unlearned))
		for i, p := range unlearned {
			peers[i] = p.srv
		}
		d.Causes = mvp.UnlearnedCauses(v.srv, peers)
		st.add("most likely cause: %s (to confirm: %s)", d.Causes[0].Text, d.Causes[0].Confirm)
		st.say(mvp.RuleDiscoveryRouting, "%s %s %s, but %s has not learned so from %s discovery; most likely %s (to confirm: %s)",
			viewNames(unlearned), serves(len(unlearned)), gvr, v.srv.Name, their(len(unlearned)), d.Causes[0].Text, d.Causes[0].Confirm)
		for _, c := range d.Causes {
			if c.Fix != "" {
				d.Plain.WhyNot = append(d.Plain.WhyNot, c.Fix)
			}
		}
		r.localOutcome(v, req, gvr, d, st, fmt.Sprintf("%s has not learned that %s %s %s: %s",
			v.srv.Name, viewNames(unlearned), serves(len(unlearned)), gvr.GroupVersion(), d.Causes[0].Text),
			fmt.Sprintf("%s %s %s, but %s has not learned so", viewNames(unlearned), serves(len(unlearned)), gvr.GroupVersion(), v.srv.Name))
		return
	}
	if len(cands) == 0 {
		st.add("no peer's discovery lists %s", gvr)
		st.say(mvp.RuleDiscoveryRouting, "no peer's discovery lists %s", gvr)
		r.enableFix(v, gvr, d)
		r.localOutcome(v, req, gvr, d, st, "no peer serves it", fmt.Sprintf("no apiserver serves %s", gvr))
		return
	}
	r.resolveWithin(v, req, gvr, cands, false, d, st)
}

// notAPeerStep says why p is not a peer at all, where that is worth a step.
func notAPeerStep(p *serverView, why mvp.PeerExclusion, st *steps) {
	switch why {
	case mvp.PeerIsSelf:
		st.add("peer %s has this server's identity (the same hostname): each takes the other for itself, never a peer", p.srv.Name)
		st.say("", "%s has the same identity (hostname) as this server, so it is never taken for a peer", p.srv.Name)
	case mvp.PeerHasNoLease:
		st.add("peer %s has no identity lease (stopped gracefully, or expired): not a peer", p.srv.Name)
		st.say("", "%s has no identity lease (stopped, or its lease expired), so it is not a peer", p.srv.Name)
	case mvp.PeerLeaseHasNoOwner:
		st.add("peer %s's identity lease has no holderIdentity: not a peer", p.srv.Name)
		st.say("", "%s's identity lease has no holder, so it is not a peer", p.srv.Name)
	case mvp.PeerDroppedAtRebuild:
		st.add("peer %s stopped answering and this server has rebuilt its peer-discovery cache since (an identity lease was created, deleted or changed holder): the rebuild could not fetch %s's discovery and dropped it", p.srv.Name, p.srv.Name)
		st.say(mvp.RuleDiscoveryRouting, "%s stopped answering, and this server rebuilt its list of what peers serve since then (another apiserver started, restarted or stopped): %s is no longer on it", p.srv.Name, p.srv.Name)
	case mvp.PeerGateOff:
		st.add("peer %s has the feature gate off: it writes no endpoint lease, so its discovery is never fetched", p.srv.Name)
		st.say(mvp.RuleFilter, "%s has the UnknownVersionInteroperabilityProxy gate off: it publishes no address, so no peer asks what it serves", p.srv.Name)
	}
}

// peerAdvertises reports whether v's peer cache lists gvr for peer p. A 1.33/1.34 server asks
// peers for discovery without profile=nopeer, so a 1.35+ peer answers with its peer-aggregated
// /apis (docs/behaviour.md §4.2).
func (r *Router) peerAdvertises(v, p *serverView, gvr gvrKey) bool {
	if v.era.LearnsPeersAggregatedView() {
		return p.advertised.has(gvr.id)
	}
	return p.local.has(gvr.id)
}

// decideStorageVersion is steps 6–9 of the SV and SV2 eras (1.28–1.32).
func (r *Router) decideStorageVersion(v *serverView, req Request, gvr gvrKey, d *Decision, st *steps) {
	entry, source := r.sv.lookup(gvr.GVR)
	if entry == nil {
		st.add("no StorageVersion lists %s (CRDs, aggregated APIs and resources without storage have none)%s", gvr, source)
		st.say(mvp.RuleStorageVersionRouting, "no StorageVersion object lists %s (CRDs, aggregated APIs and resources without storage have none), so %s looks for no peer", gvr, v.srv.Name)
		r.enableFix(v, gvr, d)
		r.localOutcome(v, req, gvr, d, st, "no StorageVersion entry: handled locally", fmt.Sprintf("no StorageVersion object lists %s", gvr))
		return
	}
	if source != "" {
		d.Inferred = true
	}
	if entry[v.srv.ID] {
		st.add("the StorageVersion for %s lists this server%s", gvr, source)
		st.say(mvp.RuleStorageVersionRouting, "the StorageVersion object of %s lists %s: it serves it itself", gvr, v.srv.Name)
		r.localOutcome(v, req, gvr, d, st, "this server is in the StorageVersion entry", "")
		return
	}
	var cands []*serverView
	var ids []string
	for id := range entry {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		p := r.viewByID(id)
		if p == nil {
			// A server the snapshot does not know: its address cannot be resolved from here.
			cands = append(cands, &serverView{srv: &snapshot.Server{Name: id, ID: id}})
			continue
		}
		cands = append(cands, p)
	}
	st.add("the StorageVersion for %s lists other servers: %s%s", gvr, strings.Join(ids, ", "), source)
	st.say(mvp.RuleStorageVersionRouting, "the StorageVersion object of %s lists %s, not %s: it looks for one of them", gvr, viewNames(cands), v.srv.Name)
	r.resolveWithin(v, req, gvr, cands, v.era.AnyUnresolvedPeerIs503(), d, st)
}

func (r *Router) viewByID(id string) *serverView {
	for _, p := range r.views {
		if p.srv.ID == id {
			return p
		}
	}
	return nil
}
