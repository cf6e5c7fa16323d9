package apiclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

// TestWithMaxBody: a context's bound cuts an answer under the client's MaxBody, never above.
func TestWithMaxBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", 1000)))
	}))
	defer srv.Close()
	c, err := New(&rest.Config{Host: srv.URL}, srv.URL, Options{MaxBody: 500})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		ctx       context.Context
		wantLen   int
		truncated bool
	}{
		{"the client's bound", context.Background(), 500, true},
		{"a smaller bound of the context", WithMaxBody(context.Background(), 100), 100, true},
		{"a larger bound of the context is the client's", WithMaxBody(context.Background(), 5000), 500, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := c.Get(tt.ctx, "/", "")
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Body) != tt.wantLen || resp.Truncated != tt.truncated {
				t.Errorf("body %d bytes, truncated %v; want %d, %v", len(resp.Body), resp.Truncated, tt.wantLen, tt.truncated)
			}
		})
	}
}
