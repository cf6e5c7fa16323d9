package replay

import (
	"fmt"
	"sort"
	"time"
)

// UnknownServer names the server of an event from a log given without SERVER=: a log merged
// from several servers says nothing of which server wrote each event.
const UnknownServer = "unknown (merged log)"

// maxProxiedRequests bounds ProxiedReport.Requests.
const maxProxiedRequests = 50

// ProxiedReport joins the two audit events of each proxied request. A server that proxies a
// request to a peer keeps its Audit-ID, so both log an event with the same auditID; the one
// that received it first is the proxying server (From), the other the peer that served it
// (To). Events are joined within replay's window of the last recentIDs audit IDs.
type ProxiedReport struct {
	// Total counts the joined requests: audit IDs logged exactly twice.
	Total int64 `json:"total"`
	// Multiple counts audit IDs logged three times or more (a log given twice, or logs that
	// overlap): they are not joined, and not in Total.
	Multiple int64 `json:"multiple,omitempty"`
	// Pairs counts the joined requests per From, To and codes, most first.
	Pairs []ProxiedPair `json:"pairs"`
	// Requests are the first 50 joined requests, in the order of their first event.
	Requests []ProxiedRequest `json:"requests"`
}

// ProxiedPair counts proxied requests from one server to another with the same codes.
type ProxiedPair struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Code is what the proxying server answered (the client's response); ToCode what the
	// peer answered it.
	Code     int   `json:"code"`
	ToCode   int   `json:"toCode"`
	Requests int64 `json:"requests"`
}

// ProxiedRequest is one joined request.
type ProxiedRequest struct {
	AuditID    string `json:"auditID"`
	Method     string `json:"method"`
	RequestURI string `json:"requestURI"` // as the proxying server logged it
	UserAgent  string `json:"userAgent,omitempty"`
	From       string `json:"from"`
	To         string `json:"to"`
	Code       int    `json:"code"`
	ToCode     int    `json:"toCode"`
	// Time is when the proxying server received it (RFC 3339; "" when the event has none).
	Time string `json:"time,omitempty"`
}

type pairKey struct {
	from, to     string
	code, toCode int
}

type join struct {
	rep   ProxiedReport
	pairs map[pairKey]int64
}

func newJoin() *join {
	return &join{pairs: map[pairKey]int64{}}
}

// add takes an audit ID leaving the window.
func (j *join) add(e *idEntry) {
	switch {
	case e.events > 2:
		j.rep.Multiple++
		return
	case e.events < 2:
		return
	}
	from, to := e.first, *e.second
	fromAt, toAt := parseTimestamp(from.received), parseTimestamp(to.received)
	// The proxying server received the request first. Without both timestamps the first
	// event read stands for it.
	if !fromAt.IsZero() && !toAt.IsZero() && toAt.Before(fromAt) {
		from, to, fromAt = to, from, toAt
	}
	k := pairKey{from: serverName(from.server), to: serverName(to.server), code: from.code, toCode: to.code}
	j.pairs[k]++
	j.rep.Total++
	if len(j.rep.Requests) < maxProxiedRequests {
		r := ProxiedRequest{AuditID: e.id, Method: from.method, RequestURI: from.uri, UserAgent: from.agent, From: k.from, To: k.to, Code: from.code, ToCode: to.code}
		if !fromAt.IsZero() {
			r.Time = fromAt.UTC().Format(time.RFC3339Nano)
		}
		j.rep.Requests = append(j.rep.Requests, r)
	}
}

// Attributed reports whether some joined request's proxying server or peer is known: its
// event comes from a log given as SERVER=FILE.
func (p *ProxiedReport) Attributed() bool {
	for _, pr := range p.Pairs {
		if pr.From != UnknownServer || pr.To != UnknownServer {
			return true
		}
	}
	return false
}

// Unattributed says which joined requests could not be attributed to servers, and why; ""
// when every one was.
func (p *ProxiedReport) Unattributed() string {
	var n int64
	for _, pr := range p.Pairs {
		if pr.From == UnknownServer || pr.To == UnknownServer {
			n += pr.Requests
		}
	}
	const why = "an audit event does not name the server that wrote it, and the log was given without SERVER= (pass each server's own log as --audit-log SERVER=FILE)"
	switch {
	case n == 0:
		return ""
	case n == p.Total:
		return "not attributed to servers: " + why
	}
	return fmt.Sprintf("%d of them not attributed to servers (%s): %s", n, UnknownServer, why)
}

func serverName(s string) string {
	if s == "" {
		return UnknownServer
	}
	return s
}

// report returns the join, or nil when no audit ID repeated.
func (j *join) report() *ProxiedReport {
	if j.rep.Total == 0 && j.rep.Multiple == 0 {
		return nil
	}
	rep := j.rep
	rep.Pairs = []ProxiedPair{}
	for k, n := range j.pairs {
		rep.Pairs = append(rep.Pairs, ProxiedPair{From: k.from, To: k.to, Code: k.code, ToCode: k.toCode, Requests: n})
	}
	sort.Slice(rep.Pairs, func(a, b int) bool {
		x, y := rep.Pairs[a], rep.Pairs[b]
		switch {
		case x.Requests != y.Requests:
			return x.Requests > y.Requests
		case x.From != y.From:
			return x.From < y.From
		case x.To != y.To:
			return x.To < y.To
		case x.Code != y.Code:
			return x.Code < y.Code
		}
		return x.ToCode < y.ToCode
	})
	if rep.Requests == nil {
		rep.Requests = []ProxiedRequest{}
	}
	return &rep
}
