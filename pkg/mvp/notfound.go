package mvp

import (
	"fmt"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// The two 404s of kube-apiserver's own handler chain, the answer a client gets when no peer
// serves the GVR (k8s.io/apiserver pkg/util/peerproxy/peerproxy_handler.go:183-188 hands the
// request to the local chain) or when a proxied request reaches a server that lacks it.

// NotFoundText is the text of the last-resort 404, the one for a path no handler is installed
// for (a group the server does not serve): the whole plain-text body (without its newline)
// before 1.38, the Status message from 1.38.
const NotFoundText = "404 page not found"

// NotFoundMessage is the Status message of the 404 a served group's handler answers for a
// version or resource it does not have (the same in every version).
const NotFoundMessage = "the server could not find the requested resource"

// LocalNotFound is the rule that decides the local handler chain's 404 for a resource request
// (docs/behaviour.md §2): the server does not serve the GVR itself (servesGVR), or serves it
// without the subresource asked for (servesSubresource). Which body: LastResortNotFound, or
// UnknownResourceNotFound when the server serves the group.
func LocalNotFound(servesGVR, servesSubresource bool) bool {
	return !servesGVR || !servesSubresource
}

// NotFoundShape names the body of the last-resort 404.
type NotFoundShape string

const (
	// ShapeText: net/http's http.NotFound, text/plain "404 page not found" (k8s.io/apiserver
	// v0.37.2 pkg/util/notfoundhandler/not_found_handler.go:64).
	ShapeText NotFoundShape = "text"
	// ShapeStatus: a metav1.Status {Failure, 404, NotFound, "404 page not found"} encoded
	// for the request's Accept (JSON for a JSON client), with empty details (k8s.io/apiserver
	// v0.38.0-alpha.2 pkg/util/notfoundhandler/not_found_handler.go:64-77).
	ShapeStatus NotFoundShape = "status"
	// ShapeUnknownResource: the 404 of a served group's handler for a version or resource it
	// does not have: a Status NotFound, NotFoundMessage, empty details (captured on
	// v1.36.3, pkg/probe/testdata/v1.36.3-a-unknown-version.json). Not the last-resort 404, so
	// the same in every version: a 1.38 client of a removed version of a served group (say
	// resource.k8s.io/v1beta1 beside resource.k8s.io/v1) reads this one.
	ShapeUnknownResource NotFoundShape = "unknown-resource"
)

// firstStatusNotFoundMinor is the first minor whose last-resort 404 is a Status (upstream
// PR 138219, read from the published v0.38.0-alpha.2 module: provisional until a 1.38
// kube-apiserver is observed).
const firstStatusNotFoundMinor = 38

// RuleNotFoundText and RuleNotFoundStatus: the shape of the last-resort 404.
const (
	RuleNotFoundText   Rule = "not-found-text"
	RuleNotFoundStatus Rule = "not-found-status"
)

// NotFoundBody is what a client that accepts JSON reads in the last-resort 404.
type NotFoundBody struct {
	Shape       NotFoundShape `json:"shape"`
	ContentType string        `json:"contentType"`
	Body        string        `json:"body"`
}

// The bodies, as the apiservers write them (the Status one is the alpha.2 unit test's,
// not_found_handler_test.go:54).
var (
	notFoundTextBody   = NotFoundBody{Shape: ShapeText, ContentType: "text/plain; charset=utf-8", Body: NotFoundText + "\n"}
	notFoundStatusBody = NotFoundBody{Shape: ShapeStatus, ContentType: "application/json",
		Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"` + NotFoundText + `","reason":"NotFound","code":404}` + "\n"}
)

// UnknownResourceNotFound is the 404 of a served group's handler (NotFoundUnknownResource).
var UnknownResourceNotFound = NotFoundBody{Shape: ShapeUnknownResource, ContentType: "application/json",
	Body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"` + NotFoundMessage + `","reason":"NotFound","details":{},"code":404}` + "\n"}

// Describe says in words which 404 b is.
func (b NotFoundBody) Describe() string {
	switch b.Shape {
	case ShapeStatus:
		return fmt.Sprintf("a Status NotFound %q, application/json: the group has no handler (%s)", NotFoundText, RuleNotFoundStatus.Versions())
	case ShapeUnknownResource:
		return fmt.Sprintf("a Status NotFound %q: the group is served, the version or resource is not", NotFoundMessage)
	}
	return fmt.Sprintf("text/plain %q: the group has no handler (%s)", NotFoundText, RuleNotFoundText.Versions())
}

// LastResortNotFound is the last-resort 404 of a binary of version v.
func LastResortNotFound(v snapshot.Version) NotFoundBody {
	if v.Major == 1 && v.Minor >= firstStatusNotFoundMinor {
		return notFoundStatusBody
	}
	return notFoundTextBody
}

// NotFoundRule is the rule LastResortNotFound follows for v, for explanations.
func NotFoundRule(v snapshot.Version) Rule {
	if LastResortNotFound(v).Shape == ShapeStatus {
		return RuleNotFoundStatus
	}
	return RuleNotFoundText
}
