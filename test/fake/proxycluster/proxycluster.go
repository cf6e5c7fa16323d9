// Package proxycluster serves fake kube-apiservers that route resource requests the way the Mixed
// Version Proxy does (docs/behaviour.md §2), for tests of pkg/probe and of `mvpctl probe`. Discovery,
// /version, /readyz and the identity leases come from test/fake/apiserver; this package
// adds the resource requests, the loop-prevention header, the two 503s, /metrics, and the
// defects a probe must catch (a server that proxies despite the header). The response bodies
// are the real ones captured from kube-apiserver v1.36.3 (pkg/probe/testdata; a test there
// checks they stay equal).
package proxycluster

import "github.com/mvpctl/mvpctl/pkg/mvp"

// Bodies captured from real v1.36.3 servers (pkg/probe/testdata).
const (
	// BodyTextNotFound: a path no handler serves (unknown group/version).
	BodyTextNotFound = mvp.NotFoundText + "\n"
	// BodyUnknownResource: a served group/version, an unknown resource.
	BodyUnknownResource = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"` + mvp.NotFoundMessage + `","reason":"NotFound","details":{},"code":404}` + "\n"
	// BodyEndpointResolution: no candidate peer's address resolves.
	BodyEndpointResolution = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"` + mvp.EndpointResolutionMessage + `","reason":"ServiceUnavailable","code":503}` + "\n"
	// BodyTransportFormat: the chosen peer does not answer (%s is its address).
	BodyTransportFormat = mvp.TransportMessagePrefix + ": dial tcp %s: connect: connection refused\n"
	// BodyMissingObjectFormat: a missing object of a served resource (name, group, resource).
	BodyMissingObjectFormat = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"%[3]s.%[2]s \"%[1]s\" not found","reason":"NotFound","details":{"name":"%[1]s","group":"%[2]s","kind":"%[3]s"},"code":404}` + "\n"
	// BodyForbiddenFormat: RBAC denied (user, verb, resource, group).
	BodyForbiddenFormat = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"%[3]s.%[4]s is forbidden: User \"%[1]s\" cannot %[2]s resource \"%[3]s\" in API group \"%[4]s\"","reason":"Forbidden","details":{"group":"%[4]s","kind":"%[3]s"},"code":403}` + "\n"

	ContentTypeText = "text/plain; charset=utf-8"
	ContentTypeJSON = "application/json"
)

// Token is the bearer token the fake servers accept.
const Token = "probetest-token-0123456789abcdef"
