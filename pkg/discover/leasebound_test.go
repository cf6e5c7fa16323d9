package discover

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// endlessBody writes the start of a document, then spaces without a newline until the client
// goes away (or 64 MiB, well past the bound).
func endlessBody(start string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, start)
		chunk := []byte(strings.Repeat(" ", 64<<10))
		for range 1024 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
}

// TestLeaseWatchBounds: a lease list's answer, or one watch event, that runs past
// MaxLeaseAnswer is a failure naming the bound (reported, retried after the backoff), not a
// buffer that grows.
func TestLeaseWatchBounds(t *testing.T) {
	for _, tt := range []struct {
		name   string
		script []func(http.ResponseWriter, *http.Request)
		want   string
	}{
		{"an endless list", []func(http.ResponseWriter, *http.Request){endlessBody(`{"kind":"LeaseList","items":[`)}, "list leases: "},
		{"an endless watch event", []func(http.ResponseWriter, *http.Request){
			list("7", leaseJSON("apiserver-a", "a_1", "7")),
			endlessBody(`{"type":"ADDED","object":{"kind":"Lease","metadata":{"name":"`),
		}, "watch leases: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(&watchServer{script: tt.script})
			defer ts.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var mu sync.Mutex
			var failures []string
			w := &LeaseWatch{
				Config:   &rest.Config{Host: ts.URL},
				OnLeases: func([]IdentityLease) {},
				OnFailure: func(err error, _ time.Duration) {
					mu.Lock()
					failures = append(failures, err.Error())
					mu.Unlock()
					cancel()
				},
				MinBackoff: 10 * time.Millisecond,
			}
			w.Run(ctx)
			mu.Lock()
			defer mu.Unlock()
			if len(failures) == 0 || !strings.Contains(failures[0], tt.want) || !strings.Contains(failures[0], "larger than 4 MiB") {
				t.Errorf("failures %q: want one starting %q naming the 4 MiB bound", failures, tt.want)
			}
		})
	}
}
