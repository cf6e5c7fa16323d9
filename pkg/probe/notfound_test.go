package probe

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestLastResortNotFoundIsNeverServed: the last-resort 404 of every version — text before
// 1.38, a JSON Status from 1.38 (k8s.io/apiserver v0.38.0-alpha.2
// pkg/util/notfoundhandler/not_found_handler.go:64-77) — is the chain's "I do not serve this",
// never a handler's answer; sent normally and forced local it is a not-found, not a proxy.
func TestLastResortNotFoundIsNeverServed(t *testing.T) {
	for _, v := range []snapshot.Version{{Major: 1, Minor: 36, Patch: 3}, {Major: 1, Minor: 37, Patch: 2}, {Major: 1, Minor: 38}, {Major: 1, Minor: 39}} {
		body := mvp.LastResortNotFound(v)
		c := Classify(Observation{StatusCode: 404, ContentType: body.ContentType, Body: []byte(body.Body)})
		if c.Class != ClassUnknownResource {
			t.Errorf("%s: the %s 404 is %s (%s), want %s", v, body.Shape, c.Class, c.Why, ClassUnknownResource)
		}
		if o := Combine(c, c); o.Outcome != mvp.NotFound {
			t.Errorf("%s: normal and forced local both the %s 404: %s, want %s", v, body.Shape, o.Outcome, mvp.NotFound)
		}
		// A 1.37 server that proxies to a 1.38 peer lacking the GVR passes the peer's 404 back.
		local := Classify(Observation{StatusCode: 404, ContentType: mvp.UnknownResourceNotFound.ContentType, Body: []byte(mvp.UnknownResourceNotFound.Body)})
		if o := Combine(c, local); o.Outcome == mvp.Proxied || c.Class == ClassServed {
			t.Errorf("%s: a peer's %s 404 counted as a handler's answer: %s", v, body.Shape, o.Outcome)
		}
	}
	// The 1.38 shape differs from the 1.37 one: a classifier that knew only the text would
	// call the Status one an error.
	if mvp.LastResortNotFound(snapshot.Version{Major: 1, Minor: 38}).ContentType == mvp.LastResortNotFound(snapshot.Version{Major: 1, Minor: 37}).ContentType {
		t.Error("the 1.37 and 1.38 404s have the same content type")
	}
}
