package main

import (
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mvpctl/mvpctl/pkg/watch"
)

// maxScrapes is how many /metrics answers the exporter writes at once: the two Prometheus
// servers of an HA pair, a few people with curl, and their retries, with room to spare. A
// scrape gathers the state of the last read (the loop reads the plane, never a scrape), so
// each is cheap; the bound is there so that a flood of them cannot grow the process without
// end. One past it is answered 503 and counted in mvpctl_exporter_scrapes_refused_total.
const maxScrapes = 16

// newScrapesRefused is the counter of scrapes answered 503 at the limit.
func newScrapesRefused() prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Namespace: watch.MetricsNamespace, Name: "exporter_scrapes_refused_total",
		Help: fmt.Sprintf("Scrapes of /metrics answered 503 because %d were in flight.", maxScrapes)})
}

// limitScrapes serves h to at most maxScrapes requests at once; one more is refused with 503
// and counted in refused.
func limitScrapes(h http.Handler, refused prometheus.Counter) http.Handler {
	slots := make(chan struct{}, maxScrapes)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
			h.ServeHTTP(w, r)
		default:
			refused.Inc()
			http.Error(w, fmt.Sprintf("%d scrapes of /metrics are in flight, the exporter's limit: retry later", maxScrapes), http.StatusServiceUnavailable)
		}
	})
}
