package apiclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// TestStalledBodyIsATimeout: a 200 whose body stops coming until the deadline is worded as
// the timeout it is, with the deadline and the fix, not as a document that does not decode.
func TestStalledBodyIsATimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"kind":"APIGroupList","groups":[`))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c, err := New(&rest.Config{Host: srv.URL}, srv.URL, Options{Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	resp, err := c.Get(ctx, "/apis", "")
	if err != nil {
		t.Fatal(err)
	}
	if resp.Cut == nil {
		t.Fatal("the stalled body is not cut")
	}
	e := DecodeError(srv.URL, "/apis", len(resp.Body), resp.Cut)
	if e.Kind != KindTimeout || !strings.Contains(e.Msg, "no answer within 300ms") || !strings.Contains(e.Msg, "raise --timeout") {
		t.Errorf("kind %v, message %q: want the timeout, its deadline and the fix", e.Kind, e.Msg)
	}
}
