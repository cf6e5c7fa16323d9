package main

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/route"
)

// Levels of -v: 4 logs every routing decision, 6 (kubectl's) every request sent too.
const (
	traceDecisionsLevel = 4
	traceRequestsLevel  = 6
)

// startTrace makes route log each decision at -v 4 and above, and apiclient each request at
// -v 6 and above (kubectl's "round_trippers" level), on stderr. URLs carry no user info; credentials never appear (the request's
// headers are not logged), and the line passes the control-character escaping of OneLine.
func (g *globalOptions) startTrace() {
	apiclient.Trace, route.TraceDecision = nil, nil
	var mu sync.Mutex
	if g.verbosity >= traceDecisionsLevel {
		route.TraceDecision = func(request string, d route.Decision) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(g.streams.ErrOut, "I %s decision: %s on %s: %s\n", time.Now().UTC().Format("15:04:05.000000"), apiclient.OneLine(request), d.Server, apiclient.OneLine(d.Plain.Answer))
		}
	}
	if g.verbosity < traceRequestsLevel {
		return
	}
	apiclient.Trace = func(method, url string, code int, took time.Duration, err error) {
		status := fmt.Sprint(code)
		if err != nil {
			status = "error: " + apiclient.OneLine(err.Error())
			var e *apiclient.Error
			if errors.As(err, &e) {
				status = "error: " + e.Msg // the request line is already written
			}
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(g.streams.ErrOut, "I %s %s %s %s in %d milliseconds\n", time.Now().UTC().Format("15:04:05.000000"), method, apiclient.OneLine(url), status, took.Milliseconds())
	}
}
