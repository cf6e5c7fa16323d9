package route

import (
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// filterStop is where the decision procedure ended (docs/behaviour.md §2): before the proxy
// filter, at one of its pass-through checks, at a peer lookup that found none, or at the
// resolution of the candidate peers.
type filterStop uint8

const (
	// stopNoProxy: the version predates the Mixed Version Proxy.
	stopNoProxy filterStop = iota
	// stopGateOff, stopNoPeerCA: the proxy filter is not installed.
	stopGateOff
	stopNoPeerCA
	// stopNonResource: discovery, health, version, metrics: never proxied.
	stopNonResource
	// stopLoopHeader: the request carries the loop-prevention header.
	stopLoopHeader
	// stopServesItself: the server's local discovery cache lists the GVR (DISC eras).
	stopServesItself
	// stopExcluded: a CRD's or an aggregated APIService's group/version (DISC+AGG eras).
	stopExcluded
	// stopUnlearned: peers serve it, but the server has not learned so.
	stopUnlearned
	// stopNoPeer: no peer's discovery lists it.
	stopNoPeer
	// stopNoStorageVersion, stopStorageVersionSelf: the SV eras' lookup found no entry, or
	// an entry that lists the server itself.
	stopNoStorageVersion
	stopStorageVersionSelf
	// stopResolve: there are candidate peers; their endpoints are resolved and one is picked.
	stopResolve
)

// verdict is what the decision procedure decided for one server and one request, before any
// words: where it stopped and by which rule, the evidence it relied on, the peers it tried and
// why each failed, and what the client gets. Router.word turns it into a Decision's text.
type verdict struct {
	v   *serverView
	req Request
	gvr gvrKey

	stop filterStop
	// rule is the rule of the Mixed Version Proxy that decided the outcome.
	rule mvp.Rule
	// newer: the server runs a minor mvpctl does not know (its rules are assumed).
	newer                      bool
	gateAssumed, filterAssumed bool

	// excludedBy (stopExcluded) names the owner of the group/version: CRDs or APIServices.
	excludedBy mvp.GroupVersionExclusion
	// skipped are the peers not taken, in snapshot order: not a peer at all, or serving the
	// GVR without the server having learned so.
	skipped []skippedPeer
	// learned is what the server's record of its learned peers said of the candidates found
	// (listed), before the check.
	learned learnedCheck
	listed  []*serverView
	// unlearned (stopUnlearned) are the peers that serve the GVR unbeknownst to the server.
	unlearned []*serverView
	causes    []mvp.Cause

	// svIDs (stopResolve in the SV eras) are the identities the StorageVersion lists;
	// svSource says where the entry came from when it was not read.
	svIDs    []string
	svSource string

	// cands (stopResolve) are the candidate peers, in the order they were tried.
	cands []*serverView
	// proxy (stopResolve) is the resolution of the candidates and the peer choice; window
	// is set when a candidate's endpoint key may or may not have expired.
	proxy  proxyVerdict
	window *endpointWindow

	// local is the local handler chain's answer when the request is not proxied.
	local localVerdict

	outcome     mvp.Outcome
	status      *int
	unavailable mvp.Unavailable503
	inferred    bool
	// alsoPossible are the other outcomes the random choice or an endpoint window allow.
	alsoPossible []mvp.Answer
	apiService   *APIServiceRef
}

// skippedPeer is a peer the procedure did not take as a candidate, and why.
type skippedPeer struct {
	p   *serverView
	why mvp.PeerExclusion
	// unlearned: p serves the GVR, but the server has not learned so (why says why not).
	unlearned bool
}

// learnedCheck is what the server's own record of what it learned says of the candidates.
type learnedCheck uint8

const (
	learnedUnchecked learnedCheck = iota
	// learnedNotListed: its peer-aggregated /apis does not list the GVR: learned from no peer.
	learnedNotListed
	// learnedListed: its peer-aggregated /apis lists it.
	learnedListed
	// learnedAssumedOldView: a 1.33/1.34 server keeps no record; assumed learned.
	learnedAssumedOldView
	// learnedAssumedUnrecorded: the snapshot has no record of it; assumed learned.
	learnedAssumedUnrecorded
)

// proxyVerdict is the resolution of the candidate peers' endpoints and the random choice
// among those that resolve (the apiserver's resolveServingLocation and rand.Intn).
type proxyVerdict struct {
	// resolved and failed are the candidates whose endpoint resolves and those whose does
	// not, each in the order they were tried; views are their servers.
	resolved, failed           []Candidate
	resolvedViews, failedViews []*serverView
	// peers are the candidates' identities in the order they were tried.
	peers           []string
	anyFailureIs503 bool
	// endpoint503: the endpoint-resolution 503 (mvp.EndpointResolution503).
	endpoint503 bool
	// best is the resolved candidate whose result is the most common; results and counts
	// are the distinct results of the random choice and how many candidates give each.
	best    Candidate
	results []candidateResult
	counts  []int
}

// candidateResult is what the client gets from one candidate.
type candidateResult struct {
	outcome     mvp.Outcome
	unavailable mvp.Unavailable503
}

// endpointWindow is a decision whose candidates include servers that stopped answering so
// recently that their endpoint keys may or may not have expired (mvp.EndpointResolvesKnown):
// the likelier answer at the snapshot's time is the verdict's, other the one of the other
// half of the window.
type endpointWindow struct {
	unknown     []*serverView
	windows     []snapshot.EndpointWindow
	likelyAlive bool
	other       candidateResult
}

// localKind is what the server's own handler chain answers.
type localKind uint8

const (
	// localServed: its own handler for the GVR answers.
	localServed localKind = iota
	// localAggregator: its kube-aggregator answers for an aggregated APIService.
	localAggregator
	// localNonResource: a non-resource request its own handlers answer.
	localNonResource
	// localDiscovery404: discovery of a group/version it serves nothing of.
	localDiscovery404
	// localNotServed404: a GVR it does not serve.
	localNotServed404
	// localNoSubresource404: a GVR it serves, without the subresource asked for.
	localNoSubresource404
)

// localVerdict is the local handler chain's answer.
type localVerdict struct {
	kind localKind
	// aggregated is the APIService whose group/version the request is for (localAggregator).
	aggregated *snapshot.APIService
	answer     mvp.AggregatorAnswer
	// gv is the discovery path's group/version (localDiscovery404).
	gv string
}
