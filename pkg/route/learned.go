package route

// learnedCandidates checks the candidate peers against what server v has actually learned:
// its own peer-aggregated /apis (mvp.LearnedView). A GVR it does not list was learned from no
// peer, so every candidate moves to unlearned. Without that evidence the candidates stand, and
// the verdict says what was assumed.
func (r *Router) learnedCandidates(vd *verdict, cands, unlearned []*serverView) ([]*serverView, []*serverView) {
	if len(cands) == 0 {
		return cands, unlearned
	}
	v, gvr := vd.v, vd.gvr
	vd.listed = cands
	switch view, ok := v.learned, v.hasLearned; {
	case ok && gvr.Group != "" && !view.has(gvr.id):
		vd.learned = learnedNotListed
		return nil, append(unlearned, cands...)
	case ok && gvr.Group != "":
		vd.learned = learnedListed
	case v.era.LearnsPeersAggregatedView():
		vd.learned = learnedAssumedOldView
	case gvr.Group != "":
		vd.learned = learnedAssumedUnrecorded
		vd.inferred = true
	}
	return cands, unlearned
}
