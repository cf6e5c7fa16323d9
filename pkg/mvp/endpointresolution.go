package mvp

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
