package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestLimitScrapes: maxScrapes scrapes are served at once; one more is answered 503, saying
// the limit, and counted.
func TestLimitScrapes(t *testing.T) {
	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(maxScrapes)
	refused := newScrapesRefused()
	var served atomic.Int32
	h := limitScrapes(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) <= maxScrapes {
			started.Done()
			<-release
		}
	}), refused)
	var done sync.WaitGroup
	for range maxScrapes {
		done.Add(1)
		go func() {
			defer done.Done()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
			if rec.Code != http.StatusOK {
				t.Errorf("a scrape within the limit: %d", rec.Code)
			}
		}()
	}
	started.Wait()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "16 scrapes of /metrics are in flight") {
		t.Errorf("one past the limit: %d %q", rec.Code, rec.Body.String())
	}
	if n := testutil.ToFloat64(refused); n != 1 {
		t.Errorf("refused counted %v, want 1", n)
	}
	close(release)
	done.Wait()
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("after the others ended: %d", rec.Code)
	}
}
