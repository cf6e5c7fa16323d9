package mvp

// TransportMessagePrefix begins the text/plain body of the transport 503: the proxy's
// responder writes the dial error after it ("error trying to reach service: dial tcp …").
const TransportMessagePrefix = "error trying to reach service"

// Transport503 is the rule that decides the transport 503 (docs/behaviour.md §5.1): the peer
// the filter picked has an endpoint that resolves, and the request is sent there; when the
// peer does not answer (peerAnswers false: it is down while its endpoint key lives) the
// proxy's responder answers 503 with the dial error.
func Transport503(peerAnswers bool) bool { return !peerAnswers }
