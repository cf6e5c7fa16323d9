package replay

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/test/fake/planes"
)

// ev is one hand-made ResponseComplete audit event; an empty ts or a code of 0 leaves the
// field out.
func ev(id, verb, uri string, code int, ts string) string {
	s := fmt.Sprintf(`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":%q,"stage":"ResponseComplete","requestURI":%q,"verb":%q,"userAgent":"ctl"`, id, uri, verb)
	if code != 0 {
		s += fmt.Sprintf(`,"responseStatus":{"metadata":{},"code":%d}`, code)
	}
	if ts != "" {
		s += fmt.Sprintf(`,"requestReceivedTimestamp":%q`, ts)
	}
	return s + "}"
}

// joinReplay replays the logs (SERVER=lines; no SERVER for a merged log) one after another.
func joinReplay(t *testing.T, logs ...[2]string) *Report {
	t.Helper()
	s := planes.Three(t, "1.36")
	steps, _ := simulate.UpgradePlan(s, "1.37", nil)
	sim, err := simulate.Run(s, steps)
	if err != nil {
		t.Fatal(err)
	}
	var trs []*Reader
	for i, l := range logs {
		tr, err := NewReader(strings.NewReader(l[1]), fmt.Sprintf("log%d", i), FormatAuditLog)
		if err != nil {
			t.Fatal(err)
		}
		tr.Server = l[0]
		trs = append(trs, tr)
	}
	rep, err := ReplayLogs(sim, trs, "logs", FormatAuditLog)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func lines(l ...string) string { return strings.Join(l, "\n") + "\n" }

// TestJoinTwoLogs: a proxied request is in both servers' logs; the server that received it
// first proxied it, whichever log is read first.
func TestJoinTwoLogs(t *testing.T) {
	jobs := "/apis/batch/v1/namespaces/x/jobs"
	a := lines(
		ev("1", "list", jobs, 200, "2026-11-23T10:00:00.000200Z"), // served for b
		ev("2", "get", "/api/v1/namespaces/x/pods/p", 200, "2026-11-23T10:00:01Z"),
		ev("3", "get", jobs+"/j", 404, "2026-11-23T10:00:02.000300Z"),       // served for b: 404 from the peer
		ev("4", "create", jobs, 503, "2026-11-23T10:00:03.000100Z"),         // a proxied to b, which failed
		ev("5", "watch", jobs+"?watch=1", 200, "2026-11-23T10:00:04.0002Z"), // served for b
	)
	b := lines(
		ev("1", "list", jobs, 200, "2026-11-23T10:00:00.000100Z"),
		ev("6", "get", "/api/v1/namespaces/x/pods/q", 200, "2026-11-23T10:00:01Z"),
		ev("3", "get", jobs+"/j", 404, "2026-11-23T10:00:02.000100Z"),
		ev("4", "create", jobs, 200, "2026-11-23T10:00:03.000200Z"),
		ev("5", "watch", jobs+"?watch=1&x=1", 200, "2026-11-23T10:00:04.0001Z"),
	)
	rep := joinReplay(t, [2]string{"kas-a", a}, [2]string{"kas-b", b})
	if rep.Requests != 6 || rep.ProxiedCopies != 4 {
		t.Errorf("requests %d, proxied copies %d; want 6, 4", rep.Requests, rep.ProxiedCopies)
	}
	p := rep.Proxied
	if p == nil {
		t.Fatal("no join")
	}
	wantPairs := []ProxiedPair{
		{From: "kas-b", To: "kas-a", Code: 200, ToCode: 200, Requests: 2},
		{From: "kas-a", To: "kas-b", Code: 503, ToCode: 200, Requests: 1},
		{From: "kas-b", To: "kas-a", Code: 404, ToCode: 404, Requests: 1},
	}
	if p.Total != 4 || p.Multiple != 0 || !reflect.DeepEqual(p.Pairs, wantPairs) {
		t.Errorf("total %d, multiple %d, pairs %+v; want 4, 0, %+v", p.Total, p.Multiple, p.Pairs, wantPairs)
	}
	want := []ProxiedRequest{
		{AuditID: "1", Method: "GET", RequestURI: jobs, UserAgent: "ctl", From: "kas-b", To: "kas-a", Code: 200, ToCode: 200, Time: "2026-11-23T10:00:00.0001Z"},
		{AuditID: "3", Method: "GET", RequestURI: jobs + "/j", UserAgent: "ctl", From: "kas-b", To: "kas-a", Code: 404, ToCode: 404, Time: "2026-11-23T10:00:02.0001Z"},
		{AuditID: "4", Method: "POST", RequestURI: jobs, UserAgent: "ctl", From: "kas-a", To: "kas-b", Code: 503, ToCode: 200, Time: "2026-11-23T10:00:03.0001Z"},
		// The proxying server's requestURI (the peer may log the query reordered).
		{AuditID: "5", Method: "GET", RequestURI: jobs + "?watch=1&x=1", UserAgent: "ctl", From: "kas-b", To: "kas-a", Code: 200, ToCode: 200, Time: "2026-11-23T10:00:04.0001Z"},
	}
	if !reflect.DeepEqual(p.Requests, want) {
		t.Errorf("requests:\n%+v\nwant\n%+v", p.Requests, want)
	}
}

// TestJoinMergedLog: pairs within one log without a server name are joined, the servers
// unknown; without timestamps the first event read stands for the proxying server.
func TestJoinMergedLog(t *testing.T) {
	rep := joinReplay(t, [2]string{"", lines(
		ev("1", "get", "/api/v1/namespaces/x/pods/p", 200, ""),
		ev("1", "get", "/api/v1/namespaces/x/pods/p", 0, ""),
		ev("2", "get", "/api/v1/namespaces/x/pods/q", 200, ""),
	)})
	p := rep.Proxied
	if p == nil || p.Total != 1 || len(p.Pairs) != 1 || len(p.Requests) != 1 {
		t.Fatalf("join %+v, want one pair", p)
	}
	want := ProxiedPair{From: UnknownServer, To: UnknownServer, Code: 200, ToCode: 0, Requests: 1}
	if p.Pairs[0] != want || p.Requests[0].Time != "" {
		t.Errorf("pair %+v, request %+v; want %+v and no time", p.Pairs[0], p.Requests[0], want)
	}
}

// TestJoinMultiple: an audit ID logged three times (a log given twice, overlapping logs) is
// not a proxied request: it is counted as multiple, not joined.
func TestJoinMultiple(t *testing.T) {
	l := lines(ev("1", "get", "/api/v1/namespaces/x/pods/p", 200, "2026-11-23T10:00:00Z"), ev("2", "get", "/api/v1/namespaces/x/pods/q", 200, "2026-11-23T10:00:01Z"))
	rep := joinReplay(t, [2]string{"a", l}, [2]string{"b", l}, [2]string{"c", lines(ev("2", "get", "/api/v1/namespaces/x/pods/q", 200, "2026-11-23T10:00:01Z"))})
	p := rep.Proxied
	if rep.Requests != 2 || rep.ProxiedCopies != 3 || p == nil || p.Total != 1 || p.Multiple != 1 {
		t.Fatalf("requests %d, copies %d, join %+v; want 2, 3, one pair and one multiple", rep.Requests, rep.ProxiedCopies, p)
	}
	if p.Requests[0].AuditID != "1" || p.Pairs[0].From != "a" || p.Pairs[0].To != "b" {
		t.Errorf("join %+v: want ID 1 from a to b (same time: read order)", p)
	}
	// No repeated ID: no join at all.
	if rep := joinReplay(t, [2]string{"a", l}); rep.Proxied != nil {
		t.Errorf("join %+v of a log without repeats", rep.Proxied)
	}
}

// TestJoinMalformedUnaffected: the join's fields never make a line malformed: an odd
// responseStatus or timestamp only leaves the join without them.
func TestJoinMalformedUnaffected(t *testing.T) {
	odd := strings.Replace(ev("1", "get", "/api/v1/namespaces/x/pods/p", 0, ""), `"userAgent"`, `"responseStatus":{"code":"x"},"requestReceivedTimestamp":7,"userAgent"`, 1)
	rep := joinReplay(t, [2]string{"a", lines(
		odd,
		`not json`,
		ev("2", "get", "/api/v1/namespaces/x/pods/q", 200, "yesterday"),
	)}, [2]string{"b", lines(
		`{"kind":"Event"`,
		ev("1", "get", "/api/v1/namespaces/x/pods/p", 200, "2026-11-23T10:00:00Z"),
		ev("2", "get", "/api/v1/namespaces/x/pods/q", 200, "2026-11-23T10:00:00Z"),
	)})
	if rep.Requests != 2 || rep.Malformed != 2 || len(rep.MalformedExamples) != 2 {
		t.Errorf("requests %d, malformed %d %v; want 2, 2", rep.Requests, rep.Malformed, rep.MalformedExamples)
	}
	p := rep.Proxied
	want := []ProxiedPair{{From: "a", To: "b", Code: 0, ToCode: 200, Requests: 1}, {From: "a", To: "b", Code: 200, ToCode: 200, Requests: 1}}
	if p == nil || p.Total != 2 || !reflect.DeepEqual(p.Pairs, want) {
		t.Errorf("join %+v, want pairs %+v", p, want)
	}
}

// TestJoinWindow: an ID is joined while it is in the window; one leaving it is handed to the
// join, oldest first, and the rest at the end.
func TestJoinWindow(t *testing.T) {
	r := newRecentIDs(2)
	var done []string
	r.done = func(e *idEntry) { done = append(done, fmt.Sprintf("%s×%d", e.id, e.events)) }
	for _, id := range []string{"a", "a", "b", "c", "a", "c"} {
		r.see(id, idHash(id), seenEvent{})
	}
	r.flush()
	if want := []string{"a×2", "b×1", "c×2", "a×1"}; !reflect.DeepEqual(done, want) {
		t.Errorf("done %v, want %v", done, want)
	}
}

// TestJoinRequestsBounded: the report lists the first maxProxiedRequests requests and counts
// them all.
func TestJoinRequestsBounded(t *testing.T) {
	var a, b []string
	for i := range maxProxiedRequests + 10 {
		id := fmt.Sprint(i)
		a = append(a, ev(id, "get", "/api/v1/namespaces/x/pods/p"+id, 200, "2026-11-23T10:00:00.1Z"))
		b = append(b, ev(id, "get", "/api/v1/namespaces/x/pods/p"+id, 200, "2026-11-23T10:00:00.2Z"))
	}
	p := joinReplay(t, [2]string{"a", lines(a...)}, [2]string{"b", lines(b...)}).Proxied
	if p == nil || p.Total != maxProxiedRequests+10 || len(p.Requests) != maxProxiedRequests || p.Requests[0].AuditID != "0" || p.Pairs[0].Requests != maxProxiedRequests+10 {
		t.Errorf("join: total %d, %d requests; want %d, %d", p.Total, len(p.Requests), maxProxiedRequests+10, maxProxiedRequests)
	}
}
