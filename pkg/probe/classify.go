// Package probe sends real requests to kube-apiservers and classifies what they
// answer. This file holds the classification: it maps each response shape of kube-apiserver's
// handler chain and of the Mixed Version Proxy to a class (see testdata/README.md for where the
// shapes were captured). The texts that identify the shapes are the apiserver's and live in
// pkg/mvp (notfound.go, peerproxy.go, aggregated.go).
package probe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// ForcedLocalHeader, set to ForcedLocalValue, makes a kube-apiserver with the Mixed
// Version Proxy handle a request itself instead of proxying it (the loop-prevention
// header; any client may send it).
const (
	ForcedLocalHeader = mvp.LoopPreventionHeader
	ForcedLocalValue  = "true"
)

// Class is what a single HTTP response says about how it was handled.
type Class string

const (
	// ClassServed: a handler for the resource answered: 2xx/3xx, or a Status about an
	// object (NotFound naming a kind/object, AlreadyExists, Conflict, Invalid, ...).
	ClassServed Class = "served"
	// ClassUnknownResource: the local handler chain's "I do not serve this" 404 — the
	// last-resort 404 for an unknown group (text/plain "404 page not found" before 1.38, a
	// Status NotFound with that message from 1.38: mvp.LastResortNotFound), or a served
	// group's Status NotFound with empty details ("the server could not find the requested
	// resource"). Never a handler's answer about an object.
	ClassUnknownResource Class = "unknown-resource"
	// ClassUnavailableEndpoint: the proxy found capable peers but could not resolve any
	// peer address (503 Status ServiceUnavailable, "Error getting ip and port info of
	// the remote server while proxying").
	ClassUnavailableEndpoint Class = "unavailable-endpoint"
	// ClassUnavailableTransport: a proxy transport error (503 text/plain "error trying
	// to reach service: ..."), e.g. connection refused by a dead peer.
	ClassUnavailableTransport Class = "unavailable-transport"
	// ClassAggregatorUnavailable: kube-aggregator's own answer for an aggregated APIService
	// that is not Available (503 text/plain "service unavailable", docs/behaviour.md §16).
	// Its dial error when the APIService is Available but the backend does not answer is
	// word for word ClassUnavailableTransport: only the path tells them apart (observe).
	ClassAggregatorUnavailable Class = "aggregator-unavailable"
	// ClassDenied: 401 or 403.
	ClassDenied Class = "denied"
	// ClassError: anything else (429, 500, an unexpected 503 or 404, ...).
	ClassError Class = "error"
)

// Messages and prefixes that identify the shapes above: the apiserver's own, from pkg/mvp.
const (
	MsgEndpointResolution = mvp.EndpointResolutionMessage
	PrefixTransportError  = mvp.TransportMessagePrefix + ":"

	mediaTypeJSON = "application/json"
	mediaTypeText = "text/plain"
	maxSummaryLen = 200
)

// Observation is one HTTP response as seen by a client.
type Observation struct {
	StatusCode  int
	ContentType string
	Body        []byte
	// Truncated: the body was longer than the client's bound and Body holds its first part.
	Truncated bool
}

// Classification is the result of Classify.
type Classification struct {
	Class      Class
	StatusCode int
	// Reason and Message come from a metav1.Status body, if there was one.
	Reason  metav1.StatusReason `json:",omitempty"`
	Message string              `json:",omitempty"`
	// Why says which rule matched, for reports.
	Why string
	// Truncated: the body was cut at the client's bound (Observation.Truncated).
	Truncated bool `json:",omitempty"`
	// ShapeCut: the class depends on the body (every status but 2xx, 3xx, 401 and 403), and the
	// body was cut: Class is ClassError, and the answer says nothing about routing. None of the
	// apiserver's own answers that the classes name is anywhere near the bound.
	ShapeCut bool `json:",omitempty"`
}

// ParseStatus decodes body as a JSON metav1.Status. It returns nil if the body is not
// one (kind must be "Status"). Only JSON is understood: probes should send
// Accept: application/json.
func ParseStatus(contentType string, body []byte) *metav1.Status {
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt != "" && mt != mediaTypeJSON {
		return nil
	}
	b := bytes.TrimSpace(body)
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	var st metav1.Status
	if err := json.Unmarshal(b, &st); err != nil || st.Kind != "Status" {
		return nil
	}
	return &st
}

// detailsEmpty reports whether a Status's details name no object: this is how the
// "I do not serve this" NotFound differs from "this object does not exist".
func detailsEmpty(d *metav1.StatusDetails) bool {
	return d == nil || (d.Name == "" && d.Group == "" && d.Kind == "" && d.UID == "" && len(d.Causes) == 0)
}

// servedReasons are Status reasons that only a resource's own handler produces.
var servedReasons = map[metav1.StatusReason]bool{
	metav1.StatusReasonAlreadyExists:         true,
	metav1.StatusReasonConflict:              true,
	metav1.StatusReasonInvalid:               true,
	metav1.StatusReasonGone:                  true,
	metav1.StatusReasonExpired:               true,
	metav1.StatusReasonRequestEntityTooLarge: true,
}

// Classify classifies one response.
func Classify(o Observation) Classification {
	c := Classification{StatusCode: o.StatusCode, Truncated: o.Truncated}
	if o.Truncated && !byStatusOnly(o.StatusCode) {
		c.Class, c.ShapeCut = ClassError, true
		c.Why = fmt.Sprintf("HTTP %d with a body longer than the %s read, cut there: no answer of the apiserver's own is that long, and its shape was not read", o.StatusCode, ByteSize(int64(len(o.Body))))
		return c
	}
	st := ParseStatus(o.ContentType, o.Body)
	if st != nil {
		c.Reason, c.Message = st.Reason, st.Message
	}
	mt, _, _ := mime.ParseMediaType(o.ContentType)
	text := strings.TrimSpace(string(o.Body))

	switch code := o.StatusCode; {
	case code >= 200 && code < 400:
		c.Class, c.Why = ClassServed, fmt.Sprintf("HTTP %d", code)
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		c.Class, c.Why = ClassDenied, fmt.Sprintf("HTTP %d", code)
	case code == http.StatusNotFound:
		c.Class, c.Why = classifyNotFound(o, st, mt, text)
	case code == http.StatusServiceUnavailable:
		classifyUnavailable(&c, o, st, mt, text)
	case st != nil && (servedReasons[st.Reason] || !detailsEmpty(st.Details)):
		c.Class, c.Why = ClassServed, fmt.Sprintf("Status %s about an object: %s", st.Reason, describeDetails(st.Details))
	default:
		c.Class, c.Why = ClassError, fmt.Sprintf("HTTP %d: %s", code, summary(o))
	}
	return c
}

// byStatusOnly reports whether a response of this status is classified by the status alone
// (its body is not read): 2xx and 3xx served, 401 and 403 denied.
func byStatusOnly(code int) bool {
	return (code >= 200 && code < 400) || code == http.StatusUnauthorized || code == http.StatusForbidden
}

// ByteSize words a bound on bytes: "1 MiB" for a whole number of MiB, else the bytes.
func ByteSize(n int64) string {
	if n > 0 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// classifyNotFound tells a 404's shape: the local handler chain's "I do not serve this" (the
// last-resort Status or text, a served group's Status with empty details), a handler's answer
// about an object, or a 404 of no known shape. st is the body's Status (nil: none), mt its
// media type, text the body trimmed.
func classifyNotFound(o Observation, st *metav1.Status, mt, text string) (Class, string) {
	switch {
	case st != nil && st.Reason == metav1.StatusReasonNotFound && detailsEmpty(st.Details) && st.Message == mvp.NotFoundText:
		return ClassUnknownResource, fmt.Sprintf("Status NotFound %q: the last-resort 404, no handler for this group (%s)", mvp.NotFoundText, mvp.RuleNotFoundStatus.Versions())
	case st != nil && st.Reason == metav1.StatusReasonNotFound && detailsEmpty(st.Details):
		return ClassUnknownResource, "Status NotFound with empty details (no handler for this version/resource)"
	case st != nil && !detailsEmpty(st.Details):
		return ClassServed, "Status NotFound about an object: " + describeDetails(st.Details)
	case st == nil && (mt == mediaTypeText || mt == "") && text == mvp.NotFoundText:
		return ClassUnknownResource, fmt.Sprintf("text/plain %q: the last-resort 404, no handler for this group (%s)", mvp.NotFoundText, mvp.RuleNotFoundText.Versions())
	}
	return ClassError, "404 of an unknown shape: " + summary(o)
}

// classifyUnavailable tells a 503's shape into c: the proxy's endpoint-resolution Status, the
// aggregator's answer for an APIService not available, a proxy transport error (its text
// kept as the message), or a 503 of no known shape.
func classifyUnavailable(c *Classification, o Observation, st *metav1.Status, mt, text string) {
	switch {
	case st != nil && st.Reason == metav1.StatusReasonServiceUnavailable && strings.Contains(st.Message, MsgEndpointResolution):
		c.Class, c.Why = ClassUnavailableEndpoint, "Status ServiceUnavailable: no peer address could be resolved"
	case st == nil && (mt == mediaTypeText || mt == "") && text == mvp.AggregatorUnavailableMessage:
		c.Class, c.Why = ClassAggregatorUnavailable, `text/plain "service unavailable": the aggregator's answer for an APIService that is not available`
	case st == nil && strings.HasPrefix(text, PrefixTransportError):
		c.Class, c.Why = ClassUnavailableTransport, "text/plain proxy transport error: "+clip(text)
		c.Message = text
	default:
		c.Class, c.Why = ClassError, "503 of an unknown shape: "+summary(o)
	}
}

func describeDetails(d *metav1.StatusDetails) string {
	if d == nil {
		return "(no details)"
	}
	gk := d.Kind
	if d.Group != "" {
		gk += "." + d.Group
	}
	return strings.TrimSpace(gk + " " + d.Name)
}

func summary(o Observation) string {
	if st := ParseStatus(o.ContentType, o.Body); st != nil {
		return fmt.Sprintf("Status reason=%q message=%q", st.Reason, clip(st.Message))
	}
	t := strings.TrimSpace(string(o.Body))
	if t == "" {
		return "(empty body)"
	}
	return fmt.Sprintf("%s %q", o.ContentType, clip(t))
}

// clip shortens a server's message for the report, its control characters escaped.
func clip(s string) string {
	s = apiclient.EscapeControl(s)
	if len(s) > maxSummaryLen {
		return s[:maxSummaryLen] + "..."
	}
	return s
}

// Observed is the routing outcome derived from a normal request and the same request
// forced local.
type Observed struct {
	Outcome mvp.Outcome
	// Unavailable says which 503 (mvp.EndpointResolution or mvp.Transport) for mvp.Unavailable.
	Unavailable mvp.Unavailable503 `json:",omitempty"`
	Normal      Classification
	Local       Classification
	Why         string
}

// Combine derives the routing outcome from the classification of a normal request
// and of the same request sent with ForcedLocalHeader (which shows what the server
// does by itself):
//
//	normal                 forced local        outcome
//	unavailable-endpoint   any                 unavailable (endpoint)
//	aggregator-unavailable same                unavailable (apiservice-unavailable)
//	unavailable-transport  unknown-resource    unavailable (transport)
//	unavailable-transport  same                local (not the peer proxy: e.g. an aggregated API's backend is down)
//	unknown-resource       unknown-resource    not-found
//	served/denied/error    unknown-resource    proxied (a peer answered)
//	X                      X (same class)      local
//	anything else                              unknown
func Combine(normal, local Classification) Observed {
	o := Observed{Normal: normal, Local: local}
	switch {
	case normal.Class == ClassUnavailableEndpoint:
		o.Outcome, o.Unavailable = mvp.Unavailable, mvp.EndpointResolution
		o.Why = "peers serve it but none of their addresses resolved"
	case normal.Class == ClassAggregatorUnavailable && local.Class == ClassAggregatorUnavailable:
		o.Outcome, o.Unavailable = mvp.Unavailable, mvp.APIServiceUnavailable
		o.Why = "the server's own aggregator answers that the APIService is not available"
	case normal.Class == ClassUnavailableTransport && local.Class == ClassUnknownResource:
		o.Outcome, o.Unavailable = mvp.Unavailable, mvp.Transport
		o.Why = "the server does not serve it and could not reach the peer it chose"
	case normal.Class == ClassUnknownResource && local.Class == ClassUnknownResource:
		o.Outcome = mvp.NotFound
		o.Why = "neither the server nor any peer it knows serves it"
	case local.Class == ClassUnknownResource && (normal.Class == ClassServed || normal.Class == ClassDenied || normal.Class == ClassError):
		o.Outcome = mvp.Proxied
		o.Why = fmt.Sprintf("the server does not serve it itself; a peer answered (%s)", normal.Class)
	case normal.Class == local.Class:
		o.Outcome = mvp.Local
		o.Why = fmt.Sprintf("the server answers the same by itself (%s)", normal.Class)
	default:
		o.Outcome = mvp.Unknown
		o.Why = fmt.Sprintf("inconsistent observations: normal %s, forced local %s", normal.Class, local.Class)
	}
	return o
}
