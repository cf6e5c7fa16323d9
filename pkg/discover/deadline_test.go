package discover

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// TestOneDeadlinePerServer: a server that trickles every answer (a byte every 50 ms, never
// done) costs one --timeout in all, not one for the lease list and a fresh one for /version.
// The bound checked is the one --timeout promises (plus slack for a loaded machine); before,
// the run took two timeouts.
func TestOneDeadlinePerServer(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("{"))
		for {
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
			if _, err := w.Write([]byte(" ")); err != nil {
				return
			}
		}
	}))
	defer ts.Close()
	const timeout = 2 * time.Second
	start := time.Now()
	snap, err := Discover(context.Background(), Options{Config: &rest.Config{Host: ts.URL}, Timeout: timeout})
	took := time.Since(start)
	if took > timeout+timeout*3/4 {
		t.Errorf("took %s for --timeout %s: want one deadline for the server", took.Round(time.Millisecond), timeout)
	}
	if err == nil && (len(snap.Servers) != 1 || snap.Servers[0].Reachable) {
		t.Errorf("servers %+v: want the one server, unreachable", snap.Servers)
	}
	if err != nil && !strings.Contains(err.Error(), ts.URL) {
		t.Errorf("error %v: want it to name the server", err)
	}
}
