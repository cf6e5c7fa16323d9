package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestAuditJoin: two real v1.36.3 servers write their own audit logs; kas-b lacks batch/v1
// and proxies jobs to kas-a. `mvpctl simulate --audit-log kas-a=A --audit-log kas-b=B` joins
// the two events of each proxied request by audit ID: exactly the requests sent to kas-b for
// jobs are reported, from kas-b to kas-a, 200 — and none of the requests served locally.
func TestAuditJoin(t *testing.T) {
	harness.SkipIfUnsupported(t)
	dir := t.TempDir()
	audit := auditFlags(t, dir)
	logA, logB := filepath.Join(dir, "kas-a-audit.log"), filepath.Join(dir, "kas-b-audit.log")
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36, ExtraFlags: audit(logA)},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36, ExtraFlags: append([]string{"--runtime-config=batch/v1=false"}, audit(logB)...)},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	snap := filepath.Join(dir, "snap.json")
	mvpctlSnapshot(t, snap, []int{0}, "--kubeconfig", cp.Kubeconfig)
	// The logs also hold the harness's own proxied probe (WaitPeers: GET …?limit=1 of a GVR
	// only the peer serves) and the snapshot's reads. The test replays what its traffic
	// logged: each log from its size at this mark on, once the earlier events are written.
	time.Sleep(time.Second)
	mark := map[string]int64{}
	for _, path := range []string{logA, logB} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		mark[path] = fi.Size()
	}

	const agent = "auditjoin-e2e"
	const proxied = 6
	type sent struct{ server, path string }
	var reqs []sent
	for i := range proxied {
		reqs = append(reqs, sent{"kas-b", fmt.Sprintf("/apis/batch/v1/namespaces/default/jobs?limit=%d", i+1)})
	}
	for i := range 3 {
		reqs = append(reqs, sent{"kas-a", fmt.Sprintf("/apis/batch/v1/namespaces/default/jobs?limit=%d", 100+i)})
	}
	for _, s := range []string{"kas-a", "kas-b"} {
		reqs = append(reqs, sent{s, "/api/v1/namespaces/default"}, sent{s, "/api/v1/namespaces/default/configmaps?limit=1"})
	}
	for _, r := range reqs {
		resp, err := cp.Server(r.server).Get(ctx, r.path, "User-Agent", agent)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s GET %s: %v %v", r.server, r.path, err, resp)
		}
	}
	// Each server logs its own requests, and kas-a also the ones kas-b proxied to it.
	want := map[string]int{logA: proxied + 3 + 2, logB: proxied + 2}
	deadline := time.Now().Add(30 * time.Second)
	for path, n := range want {
		for {
			b, _ := os.ReadFile(path)
			got := bytes.Count(b, []byte(`"userAgent":"`+agent+`"`))
			if got >= n {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d events of %s after 30s, want %d", path, got, agent, n)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	cut := map[string]string{}
	for _, path := range []string{logA, logB} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		cut[path] = path + ".test"
		if err := os.WriteFile(cut[path], b[mark[path]:], 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The whole logs, for the record: the harness's probe is a proxied request too.
	whole := runMvpctl(t, "simulate", "upgrade", "--snapshot", snap, "--to", "1.37", "--audit-log", "kas-a="+logA, "--audit-log", "kas-b="+logB)
	t.Logf("whole logs: exit %d\n%s", whole.Exit, traffic(whole.Stdout))

	r := runMvpctl(t, "simulate", "upgrade", "--snapshot", snap, "--to", "1.37", "--audit-log", "kas-a="+cut[logA], "--audit-log", "kas-b="+cut[logB], "-o", "json")
	if r.Exit != 0 && r.Exit != 3 {
		t.Fatalf("%s\n%s", r, r.Stdout)
	}
	text := runMvpctl(t, "simulate", "upgrade", "--snapshot", snap, "--to", "1.37", "--audit-log", "kas-a="+cut[logA], "--audit-log", "kas-b="+cut[logB])
	t.Logf("the test's traffic: exit %d\n%s", text.Exit, traffic(text.Stdout))
	var rep struct {
		Traffic struct {
			Requests      int64 `json:"requests"`
			ProxiedCopies int64 `json:"proxiedCopies"`
			Proxied       *struct {
				Total    int64 `json:"total"`
				Multiple int64 `json:"multiple"`
				Pairs    []struct {
					From, To     string
					Code, ToCode int
					Requests     int64
				} `json:"pairs"`
				Requests []struct {
					Method, RequestURI, From, To string
					UserAgent                    string
					Code, ToCode                 int
				} `json:"requests"`
			} `json:"proxied"`
		} `json:"traffic"`
	}
	if err := json.Unmarshal(r.Stdout, &rep); err != nil {
		t.Fatalf("%s\ndecoding: %v\n%.500s", r, err, r.Stdout)
	}
	p := rep.Traffic.Proxied
	if p == nil {
		t.Fatalf("no proxied requests reported; traffic: %d requests, %d proxied copies", rep.Traffic.Requests, rep.Traffic.ProxiedCopies)
	}
	var table []string
	for _, pr := range p.Pairs {
		table = append(table, fmt.Sprintf("%-12s %-6s %-4d %-7d %d", pr.From, pr.To, pr.Code, pr.ToCode, pr.Requests))
	}
	t.Logf("%d requests replayed; proxied (sent %d GET jobs to kas-b):\nPROXIED-FROM TO     CODE TO-CODE REQUESTS\n%s",
		rep.Traffic.Requests, proxied, strings.Join(table, "\n"))
	if p.Total != proxied || p.Multiple != 0 || rep.Traffic.ProxiedCopies != proxied {
		t.Errorf("total %d, multiple %d, proxied copies %d; want %d, 0, %d", p.Total, p.Multiple, rep.Traffic.ProxiedCopies, proxied, proxied)
	}
	if len(p.Pairs) != 1 || p.Pairs[0].From != "kas-b" || p.Pairs[0].To != "kas-a" || p.Pairs[0].Code != 200 || p.Pairs[0].ToCode != 200 || p.Pairs[0].Requests != proxied {
		t.Errorf("pairs %+v, want one: kas-b → kas-a, 200, %d", p.Pairs, proxied)
	}
	var got, wantURIs []string
	for _, q := range p.Requests {
		got = append(got, q.Method+" "+q.RequestURI)
		if q.From != "kas-b" || q.To != "kas-a" || q.Code != 200 || q.ToCode != 200 || q.UserAgent != agent {
			t.Errorf("request %+v: want kas-b → kas-a, 200, user agent %s", q, agent)
		}
	}
	for _, s := range reqs[:proxied] {
		wantURIs = append(wantURIs, "GET "+s.path)
	}
	sort.Strings(got)
	sort.Strings(wantURIs)
	if strings.Join(got, "\n") != strings.Join(wantURIs, "\n") {
		t.Errorf("proxied requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantURIs, "\n"))
	}
}

// traffic is the TRAFFIC section of simulate's text output, up to its first blank line after
// the proxied table.
func traffic(out []byte) string {
	s := string(out)
	i := strings.Index(s, "\nTRAFFIC ")
	if i < 0 {
		return "(no TRAFFIC section)"
	}
	s = s[i+1:]
	if j := strings.Index(s, "\nSTEP "); j >= 0 {
		s = s[:j]
	}
	return s
}
