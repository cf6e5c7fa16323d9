package proxytraffic

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

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// metricsServer serves /metrics from the current text, or a 403.
type metricsServer struct {
	mu        sync.Mutex
	text      string
	forbidden bool
}

func (m *metricsServer) set(start float64, proxied200, discovery float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.text = fmt.Sprintf(`# TYPE process_start_time_seconds gauge
process_start_time_seconds %g
apiserver_rerouted_request_total{code="200",group="batch",resource="jobs",version="v1"} %g
apiserver_rerouted_request_total{code="200",group="",resource="",version=""} %g
apiserver_peer_discovery_sync_errors_total{type="fetch"} 1
`, start, proxied200, discovery)
}

func (m *metricsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.forbidden {
		http.Error(w, `{"kind":"Status","code":403}`, http.StatusForbidden)
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	fmt.Fprint(w, m.text)
}

// TestSampler: a baseline first, then increases; a new process counts from zero; a server
// started after the sampler counts all; a 403 is warned about once; a server that stopped
// since the snapshot is left out silently.
func TestSampler(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	a, b, c := &metricsServer{}, &metricsServer{}, &metricsServer{forbidden: true}
	var snap snapshot.Snapshot
	for name, m := range map[string]*metricsServer{"a": a, "b": b, "c": c} {
		ts := httptest.NewServer(m)
		defer ts.Close()
		snap.Servers = append(snap.Servers, snapshot.Server{Name: name, Version: "v1.36.3", Endpoint: ts.URL, Reachable: true})
	}
	// down was up when the snapshot was taken and is gone by the read of its counters (a stop
	// in progress): left out, no warning; gone is down in the snapshot: not even tried.
	snap.Servers = append(snap.Servers, snapshot.Server{Name: "down", Version: "v1.36.3", Endpoint: "http://127.0.0.1:1", Reachable: true},
		snapshot.Server{Name: "gone", Version: "v1.36.3", Endpoint: "http://127.0.0.1:1"})
	var warnings []string
	s, err := NewSampler(Options{ConfigFor: func(*snapshot.Server) (*rest.Config, error) { return &rest.Config{}, nil },
		Timeout: 5 * time.Second, Now: func() time.Time { return now }}, func(w string) { warnings = append(warnings, w) })
	if err != nil {
		t.Fatal(err)
	}
	before := float64(now.Unix() - 100)
	a.set(before, 10, 50)
	b.set(float64(now.Unix()+5), 4, 2) // started after the sampler: all is new
	counts := func(out []Server) string {
		var parts []string
		for _, srv := range out {
			if !srv.Read {
				parts = append(parts, srv.Name+":not read")
				continue
			}
			p := fmt.Sprintf("%s:", srv.Name)
			for _, c := range srv.Proxied {
				p += fmt.Sprintf(" %s/%s=%v", c.GVR, c.Code, c.Count)
			}
			p += fmt.Sprintf(" discovery=%v", srv.DiscoveryFetches)
			parts = append(parts, p)
		}
		return strings.Join(parts, "; ")
	}
	steps := []struct {
		change func()
		want   string
	}{
		{func() {}, "b: batch/v1/jobs/200=4 discovery=2; c:not read"},
		{func() { a.set(before, 13, 55); b.set(float64(now.Unix()+5), 4, 2) }, "a: batch/v1/jobs/200=3 discovery=5; b: discovery=0; c:not read"},
		{func() { a.set(before+200, 2, 1) }, "a: batch/v1/jobs/200=2 discovery=1; b: discovery=0; c:not read"},
	}
	for i, st := range steps {
		st.change()
		out := s.Sample(context.Background(), &snap)
		// map order of the servers above: sort by name for the comparison
		byName := map[string]Server{}
		for _, srv := range out {
			byName[srv.Name] = srv
		}
		var sorted []Server
		for _, n := range []string{"a", "b", "c", "down"} {
			if srv, ok := byName[n]; ok {
				sorted = append(sorted, srv)
			}
		}
		if got := counts(sorted); got != st.want {
			t.Errorf("sample %d: %q, want %q", i+1, got, st.want)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "cannot read the proxy counters of c") || !strings.Contains(warnings[0], "403") {
		t.Errorf("warnings %q: want one, about c's 403", warnings)
	}
}
