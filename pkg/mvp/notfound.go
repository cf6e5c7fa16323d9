package mvp

// The two shapes of the local handler chain's "I do not serve this" 404 (docs/behaviour.md
// §5; captured from v1.36.3, pkg/probe/testdata). A request the proxy filter does not forward
// to a peer reaches the server's own handlers; for a group/version it has no handler for, the
// mux answers NotFoundText, and for an unknown resource of a group/version it serves, a Status
// NotFound with empty details and NotFoundMessage.
const (
	// NotFoundText is the text/plain body (without its newline) for a path no handler serves.
	NotFoundText = "404 page not found"
	// NotFoundMessage is the Status message for an unknown resource of a served group/version.
	NotFoundMessage = "the server could not find the requested resource"
)

// NotFoundShape names which of the two 404s a server answers for a resource it does not serve:
// servesGroupVersion is whether it serves anything of the resource's group/version.
func NotFoundShape(servesGroupVersion bool) string {
	if servesGroupVersion {
		return "a Status NotFound: the group/version is served, the resource is not"
	}
	return `text/plain "` + NotFoundText + `": the group/version has no handler`
}

// LocalNotFound is the rule that decides the local handler chain's 404 for a resource request
// (docs/behaviour.md §5): the server does not serve the GVR itself (servesGVR), or serves it
// without the subresource asked for (servesSubresource). Which shape: NotFoundShape.
func LocalNotFound(servesGVR, servesSubresource bool) bool {
	return !servesGVR || !servesSubresource
}
