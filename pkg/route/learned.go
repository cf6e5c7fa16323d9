package route

import "github.com/mvpctl/mvpctl/pkg/mvp"

// learnedCandidates checks the candidate peers against what server v has actually learned:
// its own peer-aggregated /apis (mvp.LearnedView). A GVR it does not list was learned from no
// peer, so every candidate moves to unlearned. Without that evidence the candidates stand, and
// the step says what was assumed.
func (r *Router) learnedCandidates(v *serverView, gvr gvrKey, cands, unlearned []*serverView, d *Decision, st *steps) ([]*serverView, []*serverView) {
	if len(cands) == 0 {
		return cands, unlearned
	}
	view, ok := v.learned, v.hasLearned
	switch {
	case ok && gvr.Group != "" && !view.has(gvr.id):
		st.add("%s's own peer-aggregated /apis does not list %s: it has not learned it from %s", v.srv.Name, gvr, viewNames(cands))
		st.say(mvp.RulePeerAggregatedDiscovery, "%s's /apis, which lists what it learned from its peers, does not list %s", v.srv.Name, gvr)
		return nil, append(unlearned, cands...)
	case ok && gvr.Group != "":
		st.add("%s's own peer-aggregated /apis lists %s: learned from a peer", v.srv.Name, gvr)
		st.say(mvp.RulePeerAggregatedDiscovery, "%s's /apis, which lists what it learned from its peers, lists %s: it knows a peer serves it", v.srv.Name, gvr)
	case v.era.LearnsPeersAggregatedView():
		st.add("assumed: %s has fetched %s's discovery (%s keeps no peer-aggregated /apis to check it by)", v.srv.Name, viewNames(cands), v.version.MinorString())
		st.say(mvp.RuleLearnsAggregatedView, "assumed: %s has fetched %s's discovery (Kubernetes %s keeps no record to check it by)", v.srv.Name, viewNames(cands), v.version.MinorString())
	case gvr.Group != "":
		st.add("assumed: %s has fetched %s's discovery (its peer-aggregated /apis is not recorded)", v.srv.Name, viewNames(cands))
		st.say(mvp.RuleDiscoveryRouting, "assumed: %s has fetched %s's discovery (the snapshot does not record what it learned)", v.srv.Name, viewNames(cands))
		d.Inferred = true
	}
	return cands, unlearned
}
