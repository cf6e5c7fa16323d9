package mvp

// The proxy filter's decisions, in the order its handler takes them (docs/behaviour.md §2;
// peerproxy_handler.go, WrapHandler): pass the request through to the local chain
// (LocalRule), fail when no candidate peer's endpoint resolves (EndpointResolution503), pick
// a peer and forward the request with the loop-prevention header (PeerChoiceRule), and answer
// 503 when that peer does not answer (Transport503). Which servers are candidates is the era's
// (era.go) and the peer cache's (peers.go, learn.go); whether an endpoint resolves,
// config.go and lifecycle.go.

// LocalRule is the rule that decides that a request is handled locally before any peer is
// looked for (docs/behaviour.md §2, steps 0–3; peerproxy_handler.go, WrapHandler): there is no
// proxy filter (hasProxy: the version has one; filterInstalled: gate on and --peer-ca-file
// set), it is not a resource request, or it carries LoopPreventionHeader. ok is false when the
// filter goes on to look for peers; a request is then local when the server serves the GVR
// itself (its discovery, or its StorageVersion entry), its group/version is excluded
// (Era.ExcludesCRDsAndAPIServices), or no peer serves it. The local handler chain may still
// answer 404 (notfound.go) or its aggregator 503 (aggregated.go).
func LocalRule(hasProxy, filterInstalled, resourceRequest, loopHeader bool) (rule Rule, ok bool) {
	switch {
	case !hasProxy:
		return RuleNoProxy, true
	case !filterInstalled:
		return RuleFilter, true
	case !resourceRequest:
		return RuleNonResource, true
	case loopHeader:
		return RuleLoopHeader, true
	}
	return "", false
}

// EndpointResolutionMessage is the message of the Status the proxy filter answers with its
// endpoint-resolution 503 (peerproxy_handler.go, WrapHandler).
const EndpointResolutionMessage = "Error getting ip and port info of the remote server while proxying"

// EndpointResolution503 is the rule that decides the endpoint-resolution 503 (docs/behaviour.md
// §5.1, §11.1): of the candidate peers for a request, failed have an endpoint key that does
// not resolve (EndpointResolves) and resolved one that does. In the SV era (anyFailureIs503,
// Era.AnyUnresolvedPeerIs503) one failure fails the request; from 1.30 only when none resolves.
func EndpointResolution503(failed, resolved int, anyFailureIs503 bool) bool {
	return failed > 0 && (anyFailureIs503 || resolved == 0)
}

// LoopPreventionHeader is set on every proxied request; a server that receives it never
// proxies again (docs/behaviour.md §3.2).
const LoopPreventionHeader = "X-Kubernetes-Peer-Proxied"

// PeerChoiceRule is the rule that decides which peer a request is proxied to (docs/behaviour.md
// §2, steps 8–9): when the filter has candidates and no endpoint-resolution 503
// (EndpointResolution503), it picks one of the resolvable peers at random and forwards the
// request with LoopPreventionHeader; the peer's answer is passed back (Proxied), unless the
// peer does not answer (Transport503). With one resolvable peer there is no choice: the rule
// that matters is the header.
func PeerChoiceRule(resolvable int) Rule {
	if resolvable == 1 {
		return RuleLoopHeader
	}
	return RuleRandomPeer
}

// TransportMessagePrefix begins the text/plain body of the transport 503: the proxy's
// responder writes the dial error after it ("error trying to reach service: dial tcp …").
const TransportMessagePrefix = "error trying to reach service"

// Transport503 is the rule that decides the transport 503 (docs/behaviour.md §5.1): the peer
// the filter picked has an endpoint that resolves, and the request is sent there; when the
// peer does not answer (peerAnswers false: it is down while its endpoint key lives) the
// proxy's responder answers 503 with the dial error.
func Transport503(peerAnswers bool) bool { return !peerAnswers }
