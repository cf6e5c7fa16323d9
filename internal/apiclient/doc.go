// Package apiclient is mvpctl's one HTTP client for talking to a single kube-apiserver,
// dialled directly: discovery (pkg/discover) and live probing (pkg/probe) both use it, so
// the TLS server-name fallback, the error wording, redirect refusal and body limits exist
// once.
//
// Credentials come from a client-go rest.Config; this package never prints or stores them.
// Errors name the server's URL (never with user info) and at most one short line of a
// response body (a Status message or an HTML title).
package apiclient
