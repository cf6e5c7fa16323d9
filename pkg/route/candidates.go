package route

import (
	"sort"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// discoveryPeers is steps 6–9 of the DISC eras (1.33+): the server's own discovery, the
// excluded group/versions, then the peers whose discovery lists the GVR and that it has
// learned so from (the filter's shouldServeLocally and findServiceableByPeerFromPeerDiscoveryCache).
func (r *Router) discoveryPeers(vd *verdict) {
	v, gvr := vd.v, vd.gvr
	vd.rule = mvp.RuleDiscoveryRouting
	if v.local.has(gvr.id) {
		vd.stop = stopServesItself
		r.serveLocally(vd)
		return
	}
	if why, ok := r.excluded.of(r.gvrs, gvr); ok && v.era.ExcludesCRDsAndAPIServices() {
		vd.stop, vd.rule, vd.excludedBy = stopExcluded, mvp.RuleExclusion, why
		r.serveLocally(vd)
		return
	}
	var cands, unlearned []*serverView
	for _, p := range r.views {
		if p == v {
			continue
		}
		switch why := mvp.Learns(v.srv, p.srv); why {
		case mvp.PeerIncluded:
			if r.peerAdvertises(v, p, gvr) {
				cands = append(cands, p)
			}
		case mvp.PeerNotTrusted, mvp.PeerAdvertiseUnreachable:
			if r.peerAdvertises(v, p, gvr) {
				vd.skipped = append(vd.skipped, skippedPeer{p: p, why: why, unlearned: true})
				unlearned = append(unlearned, p)
			}
		case mvp.PeerIsSelf, mvp.PeerHasNoLease, mvp.PeerLeaseHasNoOwner, mvp.PeerDroppedAtRebuild, mvp.PeerDroppedNotRelearned, mvp.PeerGateOff:
			vd.skipped = append(vd.skipped, skippedPeer{p: p, why: why})
		}
	}
	cands, unlearned = r.learnedCandidates(vd, cands, unlearned)
	switch {
	case len(cands) == 0 && len(unlearned) > 0:
		peers := make([]*snapshot.Server, len(unlearned))
		for i, p := range unlearned {
			peers[i] = p.srv
		}
		vd.stop, vd.unlearned, vd.causes = stopUnlearned, unlearned, mvp.UnlearnedCauses(v.srv, peers)
		r.serveLocally(vd)
	case len(cands) == 0:
		vd.stop = stopNoPeer
		r.serveLocally(vd)
	default:
		r.resolveWithin(vd, cands, false)
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

// storageVersionPeers is steps 6–9 of the SV and SV2 eras (1.28–1.32): the StorageVersion
// object of the GVR names the servers that serve it.
func (r *Router) storageVersionPeers(vd *verdict) {
	v := vd.v
	vd.rule = mvp.RuleStorageVersionRouting
	entry, source := r.sv.lookup(vd.gvr.GVR)
	vd.svSource = source
	if entry == nil {
		vd.stop = stopNoStorageVersion
		r.serveLocally(vd)
		return
	}
	if source != "" {
		vd.inferred = true
	}
	if entry[v.srv.ID] {
		vd.stop = stopStorageVersionSelf
		r.serveLocally(vd)
		return
	}
	var cands []*serverView
	for id := range entry {
		vd.svIDs = append(vd.svIDs, id)
	}
	sort.Strings(vd.svIDs)
	for _, id := range vd.svIDs {
		p := r.viewByID(id)
		if p == nil {
			// A server the snapshot does not know: its address cannot be resolved from here.
			p = &serverView{srv: &snapshot.Server{Name: id, ID: id}}
		}
		cands = append(cands, p)
	}
	r.resolveWithin(vd, cands, v.era.AnyUnresolvedPeerIs503())
}

func (r *Router) viewByID(id string) *serverView {
	for _, p := range r.views {
		if p.srv.ID == id {
			return p
		}
	}
	return nil
}
