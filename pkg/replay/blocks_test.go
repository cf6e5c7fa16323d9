package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/test/fake/auditevents"
)

// TestReplayBlocksMatchRequestByRequest: Replay counts by blocks and (agent, class) pairs; the
// reference (ref_test.go) counts request by request with route.ParseRequest. Over
// logs in which audit IDs repeat — two servers' logs of proxied requests, one merged log,
// IDs logged three times, copies far apart (beyond the window) — with every stage, malformed
// lines and non-resource requests, the reports must be identical, join included.
func TestReplayBlocksMatchRequestByRequest(t *testing.T) {
	sim := upgradeSimulation(t)
	o := auditevents.Options{Seed: 23, Requests: 12000, Stages: true, MalformedEvery: 97}
	if testing.Short() {
		o.Requests = 3000
	}
	a := generated(t, o)
	lines := strings.SplitAfter(string(a), "\n")
	// b: a peer's log holding every third event of a again, answered later and with another
	// code; a few of them three times.
	var b strings.Builder
	for i, l := range lines {
		if i%3 != 0 || !strings.Contains(l, `"auditID"`) {
			continue
		}
		l = strings.Replace(l, `"code":200`, `"code":201`, 1)
		l = strings.Replace(l, `"requestReceivedTimestamp":"2026-`, `"requestReceivedTimestamp":"2027-`, 1)
		b.WriteString(l)
		if i%300 == 0 {
			b.WriteString(l)
		}
	}
	// merged: a with its own events repeated at distances below and beyond the window.
	var merged strings.Builder
	for i, l := range lines {
		merged.WriteString(l)
		if i%5 == 0 && i >= 2000 {
			merged.WriteString(lines[i-2000])
		}
	}
	cases := map[string][]struct{ server, data string }{
		"two servers": {{"a", string(a)}, {"b", b.String()}},
		"merged":      {{"", merged.String()}},
		"requests":    {{"", "GET /api/v1/pods\nget /healthz\nBREW /api/v1/pods\nPOST /apis/apps/v1/namespaces/x/deployments\nGET /api/v1/watch\nGET x\n"}},
	}
	for name, logs := range cases {
		format := FormatAuditLog
		if name == "requests" {
			format = FormatRequests
		}
		open := func() []*Reader {
			var trs []*Reader
			for _, l := range logs {
				tr, err := NewReader(strings.NewReader(l.data), "log-"+l.server, format)
				if err != nil {
					t.Fatal(err)
				}
				tr.Server = l.server
				trs = append(trs, tr)
			}
			return trs
		}
		got, err := ReplayLogs(sim, open(), "src", format)
		if err != nil {
			t.Fatal(err)
		}
		trs, i := open(), 0
		next := func() (TrafficRequest, error) {
			for i < len(trs) {
				tq, err := trs[i].Next()
				if errors.Is(err, io.EOF) {
					i++
					continue
				}
				tq.server = trs[i].Server
				return tq, err
			}
			return TrafficRequest{}, io.EOF
		}
		want, err := replay(sim, next, func(rep *Report) {
			for _, tr := range trs {
				rep.Malformed += tr.Malformed
				rep.Skipped += tr.Skipped
				for _, e := range tr.Examples {
					if len(rep.MalformedExamples) < maxExamples {
						rep.MalformedExamples = append(rep.MalformedExamples, e)
					}
				}
			}
		}, "src", format)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: replay by blocks differs from request by request:\n got %s\nwant %s", name, summary(got), summary(want))
		}
		if name != "requests" && (want.ProxiedCopies == 0 || want.Proxied == nil || want.Proxied.Total == 0) {
			t.Errorf("%s: no proxied copies: the case tests nothing of the join", name)
		}
		if name == "two servers" && want.Proxied.Multiple == 0 {
			t.Errorf("%s: no ID logged three times", name)
		}
	}
}

func summary(r *Report) string {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "requests %d nonresource %d unparsable %d malformed %d skipped %d copies %d\n", r.Requests, r.NonResource, r.Unparsable, r.Malformed, r.Skipped, r.ProxiedCopies)
	fmt.Fprintf(&buf, "steps %+v\n", r.Steps)
	if r.Proxied != nil {
		fmt.Fprintf(&buf, "proxied %d multiple %d pairs %+v first %+v\n", r.Proxied.Total, r.Proxied.Multiple, r.Proxied.Pairs, r.Proxied.Requests[:min(3, len(r.Proxied.Requests))])
	}
	for _, g := range r.GVRs[:min(5, len(r.GVRs))] {
		fmt.Fprintf(&buf, "%+v\n", g)
	}
	for _, u := range r.UserAgents[:min(5, len(r.UserAgents))] {
		fmt.Fprintf(&buf, "%+v\n", u)
	}
	return buf.String()
}
