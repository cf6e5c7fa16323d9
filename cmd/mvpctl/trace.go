package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/mvpctl/mvpctl/internal/apiclient"
)

// traceRequestsLevel is the -v level that logs every request, kubectl's (-v 6).
const traceRequestsLevel = 6

// startTrace makes apiclient log each request on stderr at -v 6 and above, in kubectl's
// "round_trippers" shape. URLs carry no user info; credentials never appear (the request's
// headers are not logged), and the line passes the control-character escaping of OneLine.
func (g *globalOptions) startTrace() {
	if g.verbosity < traceRequestsLevel {
		apiclient.Trace = nil
		return
	}
	var mu sync.Mutex
	apiclient.Trace = func(method, url string, code int, took time.Duration, err error) {
		status := fmt.Sprint(code)
		if err != nil {
			status = "error: " + apiclient.OneLine(err.Error())
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(g.streams.ErrOut, "I %s %s %s %s in %d milliseconds\n", time.Now().UTC().Format("15:04:05.000000"), method, apiclient.OneLine(url), status, took.Milliseconds())
	}
}
