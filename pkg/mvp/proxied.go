package mvp

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
