package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/kubeflags"

	"github.com/mvpctl/mvpctl/pkg/probe"
	"github.com/mvpctl/mvpctl/pkg/proxytraffic"
	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
	pt "github.com/mvpctl/mvpctl/test/fake/proxycluster"
)

// probeCluster is kas-a (every API) and kas-b (no batch/v1), both v1.36.3 with the proxy on.
func probeCluster(t *testing.T, tweakB func(*pt.Server)) (*pt.Cluster, string) {
	t.Helper()
	a := &pt.Server{Name: "kas-a", Version: "v1.36.3", Core: dt.CoreGroup(), Groups: pt.Groups136(true)}
	b := &pt.Server{Name: "kas-b", Version: "v1.36.3", Core: dt.CoreGroup(), Groups: pt.Groups136(false)}
	if tweakB != nil {
		tweakB(b)
	}
	c := pt.Start(t, a, b)
	return c, c.Kubeconfig(t)
}

// fast are the bounds the tests run with: the fake servers answer at once.
var fast = []string{"--qps", "1000", "--probe-concurrency", "8"}

func probeArgs(kubeconfig string, args ...string) []string {
	return append(append([]string{"probe", "--kubeconfig", kubeconfig}, fast...), args...)
}

// goldenProbe compares got with testdata/probe/name, or rewrites it with -update.
func goldenProbe(t *testing.T, name, got string) {
	t.Helper()
	goldenFile(t, filepath.Join("testdata", "probe", name), got)
}

func assertNoProbeToken(t *testing.T, where, text string) {
	t.Helper()
	if strings.Contains(text, pt.Token) {
		t.Errorf("%s contains the bearer token", where)
	}
}

// TestProbeTable: a live snapshot, every observation matches, exit 0; the table, the metrics
// and the result line on stdout, nothing on stderr (not a terminal: no progress).
func TestProbeTable(t *testing.T) {
	_, kc := probeCluster(t, nil)
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"batch.txt", []string{"--group", "batch"}},
		{"batch-wide.txt", []string{"--resource", "jobs.batch", "-o", "wide"}},
		{"default.txt", nil},
		{"batch-wide-no-headers.txt", []string{"--resource", "jobs.batch", "-o", "wide", "--no-headers"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			out, errOut, code := run(t, probeArgs(kc, tc.args...)...)
			if code != ExitOK || errOut != "" {
				t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
			}
			goldenProbe(t, tc.golden, out)
			assertNoProbeToken(t, "stdout", out)
		})
	}
}

// TestProbeJSON: kind ProbeReport, namespace from -n, dry-run creates.
func TestProbeJSON(t *testing.T) {
	_, kc := probeCluster(t, nil)
	out, errOut, code := run(t, probeArgs(kc, "--group", "batch", "-n", "team-a", "--write-dry-run", "-o", "json")...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep probe.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.APIVersion != report.APIVersion || rep.Kind != probe.ReportKind || rep.Settings.Namespace != "team-a" || !rep.Settings.WriteDryRun {
		t.Errorf("report header %s/%s settings %+v", rep.APIVersion, rep.Kind, rep.Settings)
	}
	if rep.Summary.Results != 16 || rep.Summary.Match != 16 {
		t.Errorf("summary %+v", rep.Summary)
	}
	for _, r := range rep.Results {
		if !strings.Contains(r.Path, "/namespaces/team-a/") {
			t.Errorf("path %s", r.Path)
		}
	}
	if !rep.StartedAt.Equal(fixedNow) {
		t.Errorf("startedAt %s: the command's clock is not used", rep.StartedAt)
	}
	out, _, _ = run(t, probeArgs(kc, "--resource", "jobs", "-o", "yaml")...)
	if !strings.HasPrefix(out, "apiVersion: mvpctl.io/v1alpha1\n") || !strings.Contains(out, "kind: ProbeReport\n") {
		t.Errorf("yaml: %.200s", out)
	}
}

// TestProbeMismatchExit3: a snapshot file that is wrong about kas-b gives mismatches: exit 3.
func TestProbeMismatchExit3(t *testing.T) {
	_, kc := probeCluster(t, nil)
	file := filepath.Join(t.TempDir(), "snap.yaml")
	if _, errOut, code := run(t, "snapshot", "--kubeconfig", kc, "-f", file); code != ExitOK {
		t.Fatalf("snapshot: exit %d %s", code, errOut)
	}
	snap, err := snapshot.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b := snap.Find("kas-b")
	// An edited list: its documents, which the file would otherwise derive it from (and which
	// must agree with it), go.
	b.CoreAPI, b.APIs = nil, nil
	b.Resources = append(b.Resources, snapshot.Resource{Group: "batch", Version: "v1", Resource: "jobs", Kind: "Job", Namespaced: true, Verbs: dt.AllVerbs})
	if err := snap.WriteFile(file, false); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, probeArgs(kc, "--snapshot", file, "--resource", "jobs")...)
	if code != ExitFindings {
		t.Fatalf("exit %d, want %d; stderr %s", code, ExitFindings, errOut)
	}
	if errOut != "error: probe: 3 mismatch(es), 0 loop-header violation(s) in 6 result(s)\n" {
		t.Errorf("stderr %q", errOut)
	}
	if !hasRow(out, "kas-b", "batch/v1/jobs", "list", "local", "proxy→kas-a", "mismatch") {
		t.Errorf("stdout:\n%s", out)
	}
}

// TestProbeLoopViolationExit3: a server that proxies despite the header.
func TestProbeLoopViolationExit3(t *testing.T) {
	_, kc := probeCluster(t, func(b *pt.Server) { b.IgnoreLoopHeader = true })
	out, errOut, code := run(t, probeArgs(kc, "--resource", "jobs")...)
	if code != ExitFindings || !strings.Contains(errOut, "3 loop-header violation(s)") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "loop-header-violation") {
		t.Errorf("stdout:\n%s", out)
	}
}

// TestProbePartialExit2: a crashed peer: kas-b's 503s match the prediction, kas-a cannot be
// probed: exit 2, a warning per unprobed server.
func TestProbePartialExit2(t *testing.T) {
	c, _ := probeCluster(t, nil)
	c.Servers[0].Kill()
	kc := c.Kubeconfig(t) // through kas-b now
	out, errOut, code := run(t, probeArgs(kc, "--group", "batch", "-o", "wide")...)
	if code != ExitIncomplete {
		t.Fatalf("exit %d, want %d; stderr %s\n%s", code, ExitIncomplete, errOut, out)
	}
	for _, want := range []string{
		"warning: server kas-a (https://" + c.Servers[0].Addr() + "): GET /version: connection refused",
		"warning: partial result: kas-a could not be probed\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !hasRow(out, "kas-b", "batch/v1/jobs", "list", "503", "(transport)", "503", "(transport)", "match", "503/404") {
		t.Errorf("stdout:\n%s", out)
	}
	assertNoProbeToken(t, "stderr", errOut)
	_, decisions, _ := run(t, "explain", "--snapshot", skew, "-v", "4", "GET", "/apis/batch/v1/namespaces/default/jobs")
	if !strings.Contains(decisions, "decision: GET /apis/batch/v1/namespaces/default/jobs on kas-b: proxied to kas-a") || strings.Contains(decisions, " GET https://") {
		t.Errorf("-v 4: %q", decisions)
	}
}

// TestProbeDeniedExit2: 403 everywhere is no evidence: exit 2, not 3.
func TestProbeDeniedExit2(t *testing.T) {
	_, kc := probeCluster(t, func(b *pt.Server) { b.DenyAll = true })
	_, errOut, code := run(t, probeArgs(kc, "--resource", "jobs")...)
	if code != ExitIncomplete || !strings.Contains(errOut, "3 of 6 measurement(s) gave no routing evidence (3 inconclusive") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// TestProbeUsageErrors: exit 1, one line on stderr, nothing on stdout.
func TestProbeUsageErrors(t *testing.T) {
	_, kc := probeCluster(t, nil)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{probeArgs(kc, "-o", "xml"), `unknown output format "xml"`},
		{probeArgs(kc, "--probe-concurrency", "0"), "--probe-concurrency must be at least 1"},
		{probeArgs(kc, "--qps", "0"), "--qps must be positive"},
		{probeArgs(kc, "--probe-timeout", "1s"), "too short: the watch requests take 1s"},
		{probeArgs(kc, "--resource", "widgets"), "no group/version/resource matches resource widgets"},
		{probeArgs(kc, "--apiserver", "kas-z"), `no server "kas-z" in the snapshot`},
		{probeArgs(kc, "--proxied-header", "no spaces allowed"), "is not an HTTP header name"},
		{probeArgs(kc, "--contexts", "nope"), `context "nope" is not in the kubeconfig`},
		{[]string{"probe", "--kubeconfig", filepath.Join(t.TempDir(), "none"), "--snapshot", "testdata/snapshots/skew.yaml"}, "kubeconfig"},
	} {
		t.Run(strings.Join(tc.args[3:], " "), func(t *testing.T) {
			out, errOut, code := run(t, tc.args...)
			if code != ExitError || out != "" || !strings.HasPrefix(errOut, "error: ") || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want one line mentioning %q", code, out, errOut, tc.want)
			}
		})
	}
}

// TestProbeContexts: one kubeconfig context per apiserver.
func TestProbeContexts(t *testing.T) {
	c, kc := probeCluster(t, nil)
	// Two more contexts, one per server (same credentials).
	data, _ := os.ReadFile(kc)
	s := string(data)
	for _, srv := range c.Servers {
		s = strings.Replace(s, "contexts:\n", "contexts:\n- context:\n    cluster: "+srv.Name+"\n    user: probetest\n  name: "+srv.Name+"\n", 1)
		s = strings.Replace(s, "clusters:\n", "clusters:\n- cluster:\n    certificate-authority-data: "+caData(t, s)+"\n    server: "+srv.URL()+"\n  name: "+srv.Name+"\n", 1)
	}
	if err := os.WriteFile(kc, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, probeArgs(kc, "--contexts", "kas-a,kas-b", "--resource", "jobs", "-o", "json")...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep probe.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Servers) != 2 || rep.Summary.Match != 6 || !strings.Contains(rep.Snapshot.Source, `contexts "kas-a", "kas-b"`) {
		t.Errorf("servers %+v summary %+v source %q", rep.Servers, rep.Summary, rep.Snapshot.Source)
	}
}

// caData returns the first certificate-authority-data value of a kubeconfig.
func caData(t *testing.T, kubeconfig string) string {
	t.Helper()
	const key = "certificate-authority-data: "
	i := strings.Index(kubeconfig, key)
	if i < 0 {
		t.Fatal("no certificate-authority-data")
	}
	rest := kubeconfig[i+len(key):]
	return rest[:strings.IndexByte(rest, '\n')]
}

// hasRow reports whether a line of a table starts with these fields.
func hasRow(out string, fields ...string) bool {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= len(fields) && strings.Join(f[:len(fields)], " ") == strings.Join(fields, " ") {
			return true
		}
	}
	return false
}

// TestProbeProgress: progress lines on a terminal only, "[probe]"-prefixed, on stderr.
func TestProbeProgress(t *testing.T) {
	_, kc := probeCluster(t, nil)
	var out, errOut bytes.Buffer
	code := execute(probeArgs(kc, "--resource", "jobs"), &globalOptions{streams: Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, ErrIsTerminal: true},
		configFlags: kubeflags.New(), clock: func() time.Time { return fixedNow }})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"[probe] probing 2 server(s) × 1 GVR(s): 6 measurements, 12 requests\n", "[probe] measured 6/6\n", "[discovery] found 2 apiservers"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	if strings.Contains(out.String(), "[probe]") {
		t.Errorf("progress on stdout")
	}
}

// TestProbeInsecure: --insecure-skip-tls-verify works, with a warning on stderr.
func TestProbeInsecure(t *testing.T) {
	_, kc := probeCluster(t, nil)
	out, errOut, code := run(t, probeArgs(kc, "--resource", "jobs", "--insecure-skip-tls-verify", "-o", "json")...)
	if code != ExitOK || !strings.Contains(errOut, "warning: TLS verification is off (--insecure-skip-tls-verify)") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var rep probe.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || !rep.Settings.InsecureTLS {
		t.Errorf("settings %+v (%v)", rep.Settings, err)
	}
}

// TestProbeUsesRecordedContext: a snapshot records which kubeconfig context read each server,
// and probe --snapshot uses that context's credentials for it. kas-b accepts only its own
// context's token, so probing it with the current context's would get 401.
func TestProbeUsesRecordedContext(t *testing.T) {
	const bToken = "kas-b-only-token-fedcba9876543210"
	c, kc := probeCluster(t, func(b *pt.Server) { b.Token = bToken })
	data, _ := os.ReadFile(kc)
	s := string(data)
	for _, srv := range c.Servers {
		user := "probetest"
		if srv.Name == "kas-b" {
			user = "kas-b-user"
		}
		s = strings.Replace(s, "contexts:\n", "contexts:\n- context:\n    cluster: "+srv.Name+"\n    user: "+user+"\n  name: "+srv.Name+"\n", 1)
		s = strings.Replace(s, "clusters:\n", "clusters:\n- cluster:\n    certificate-authority-data: "+caData(t, s)+"\n    server: "+srv.URL()+"\n  name: "+srv.Name+"\n", 1)
	}
	s = strings.Replace(s, "users:\n", "users:\n- name: kas-b-user\n  user:\n    token: "+bToken+"\n", 1)
	if err := os.WriteFile(kc, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "snap.yaml")
	if _, errOut, code := run(t, "snapshot", "--kubeconfig", kc, "--contexts", "kas-a,kas-b", "-f", file); code != ExitOK {
		t.Fatalf("snapshot: exit %d: %s", code, errOut)
	}
	snap, err := snapshot.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, srv := range snap.Servers {
		if srv.Context != srv.Name {
			t.Errorf("server %s recorded context %q, want %q", srv.Name, srv.Context, srv.Name)
		}
	}
	out, errOut, code := run(t, probeArgs(kc, "--snapshot", file, "--resource", "jobs", "-o", "json")...)
	if code != ExitOK {
		t.Fatalf("probe: exit %d: %s", code, errOut)
	}
	var rep probe.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Servers) != 2 || rep.Summary.Match != 6 || rep.Summary.ServersNotProbed != 0 {
		t.Errorf("servers %+v summary %+v", rep.Servers, rep.Summary)
	}
	assertNoProbeToken(t, "stdout", out)
	if strings.Contains(out+errOut, bToken) {
		t.Error("kas-b's token appears in the output")
	}
}

// TestTraffic: mvpctl traffic reports exactly the requests proxied during its interval, per
// server and GVR, and nothing for a server that proxied nothing.
func TestTraffic(t *testing.T) {
	c, kc := probeCluster(t, nil)
	hc, err := rest.HTTPClientFor(c.RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	a, b := c.Servers[0], c.Servers[1] // kas-b lacks batch/v1: it proxies jobs to kas-a
	go func() {
		// After traffic's first read of both servers (the second /metrics answer: the live
		// snapshot reads it once before), not a guess of when that ends (300 ms once; a
		// loaded machine took longer), and well before its second read, 1.5 s later.
		for deadline := time.Now().Add(30 * time.Second); a.MetricsReads() < 2 || b.MetricsReads() < 2; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				return
			}
		}
		for i := 0; i < 3; i++ {
			if resp, err := hc.Get(b.URL() + "/apis/batch/v1/namespaces/default/jobs"); err == nil {
				resp.Body.Close()
			}
		}
	}()
	out, errOut, code := run(t, "traffic", "--kubeconfig", kc, "--interval", "1500ms", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep proxytraffic.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, s := range rep.Servers {
		if !s.Read || !s.ByGVR {
			t.Errorf("server %s: %+v", s.Name, s)
		}
		got[s.Name] = s.ProxiedTotal
		for _, p := range s.Proxied {
			if p.GVR != "batch/v1/jobs" || p.Code != "200" {
				t.Errorf("%s proxied %+v", s.Name, p)
			}
		}
	}
	if got["kas-a"] != 0 || got["kas-b"] != 3 || rep.Kind != "ProxyTraffic" {
		t.Errorf("proxied %v, kind %q", got, rep.Kind)
	}
	assertNoProbeToken(t, "stdout", out)
}

// TestVerboseRequests: -v is klog's verbosity. From 6 client-go logs every request it sends
// (method, URL, status, time), from 7 the request headers, 8 the response headers too, 9 a
// curl line; the bearer token of the kubeconfig (an Authorization header on every request) is
// masked at every level. Below 6 no request is logged; at 4 every routing decision is.
func TestVerboseRequests(t *testing.T) {
	_, kc := probeCluster(t, nil)
	tests := []struct {
		v         string
		want, not []string
	}{
		{"0", nil, []string{"GET https://", `verb="GET"`, "round_trippers", "decision:"}},
		{"4", []string{"decision: GET /apis/"}, []string{`verb="GET"`}},
		{"6", []string{`"Response" verb="GET" url="https://`, `/version" status="200 OK" milliseconds=`, "decision: "}, []string{"Authorization"}},
		{"8", []string{"Authorization: Bearer <masked>", "Content-Type: application/json"}, nil},
		{"9", []string{"curl -v -XGET", `-H "Authorization: Bearer <masked>"`}, nil},
	}
	for _, tt := range tests {
		out, errOut, code := run(t, "routes", "--kubeconfig", kc, "-v", tt.v)
		if code != ExitOK || out == "" {
			t.Fatalf("-v %s: exit %d: %s", tt.v, code, errOut)
		}
		for _, w := range tt.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("-v %s: stderr lacks %q:\n%s", tt.v, w, errOut)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(errOut, n) {
				t.Errorf("-v %s: stderr has %q:\n%s", tt.v, n, errOut)
			}
		}
		if strings.Contains(errOut, "note: ") {
			t.Errorf("-v %s: something wrote to the process's stderr:\n%s", tt.v, errOut)
		}
		assertNoProbeToken(t, "stderr at -v "+tt.v, errOut)
	}
	_, decisions, _ := run(t, "explain", "--snapshot", skew, "-v", "4", "GET", "/apis/batch/v1/namespaces/default/jobs")
	if !strings.Contains(decisions, "decision: GET /apis/batch/v1/namespaces/default/jobs on kas-b: proxied to kas-a") || strings.Contains(decisions, " GET https://") {
		t.Errorf("-v 4: %q", decisions)
	}
}

// TestTrafficUnreadableCounters: a server whose /metrics the credentials may not read is listed
// with the RBAC to grant and the run is partial (2); when no server's counters can be read it is
// an error (1), never an empty table that reads as "nothing was proxied".
func TestTrafficUnreadableCounters(t *testing.T) {
	_, kc := probeCluster(t, func(b *pt.Server) { b.MetricsForbidden = true })
	out, errOut, code := run(t, "traffic", "--kubeconfig", kc, "--interval", "200ms")
	if code != ExitIncomplete || !strings.Contains(out, "kas-b: not read: GET /metrics: HTTP 403: not allowed to read /metrics") ||
		!strings.Contains(errOut, "the counters of kas-b could not be read") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	rep := &proxytraffic.Report{Servers: []proxytraffic.Server{{Name: "kas-a", Note: "GET /metrics: HTTP 403"}, {Name: "kas-b", Note: "GET /metrics: HTTP 403"}}}
	if err := trafficReadable(rep); err == nil || err.Error() != "no apiserver's counters could be read (kas-a: GET /metrics: HTTP 403)" {
		t.Errorf("trafficReadable: %v", err)
	}
}

// TestProbeTableCutAnswers: answers longer than probe.MaxBody. kas-a's list of jobs (kas-b proxies
// it) is cut and still classified by its status: matches, each cut answer named. kas-b's own
// 404 for cronjobs, padded past the bound, is no apiserver's own: inconclusive, exit 2.
func TestProbeTableCutAnswers(t *testing.T) {
	over := func(body string) string { return body + strings.Repeat(" ", probe.MaxBody+1024-len(body)) }
	answer := func(s *pt.Server, path, query string, code int, contentType, body string) {
		s.Answer = func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.HasSuffix(r.URL.Path, path) || !strings.Contains(r.URL.RawQuery, query) {
				return false
			}
			w.Header().Set("Content-Type", contentType)
			w.WriteHeader(code)
			io.WriteString(w, body)
			return true
		}
	}
	a := &pt.Server{Name: "kas-a", Version: "v1.36.3", Core: dt.CoreGroup(), Groups: pt.Groups136(true)}
	b := &pt.Server{Name: "kas-b", Version: "v1.36.3", Core: dt.CoreGroup(), Groups: pt.Groups136(false)}
	answer(a, "/jobs", "limit=1", 200, pt.ContentTypeJSON, over(`{"kind":"JobList","apiVersion":"batch/v1","metadata":{"resourceVersion":"9"},"items":[]}`))
	answer(b, "/cronjobs", "limit=1", 404, pt.ContentTypeText, over(pt.BodyTextNotFound))
	kc := pt.Start(t, a, b).Kubeconfig(t)
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"cut.txt", []string{"--group", "batch"}},
		{"cut-wide.txt", []string{"--group", "batch", "-o", "wide"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			out, errOut, code := run(t, probeArgs(kc, tc.args...)...)
			if code != ExitIncomplete || !strings.Contains(errOut, "1 inconclusive") {
				t.Fatalf("exit %d, stderr %q, want %d and the inconclusive measurement named\n%s", code, errOut, ExitIncomplete, out)
			}
			goldenProbe(t, tc.golden, out)
		})
	}
	out, _, _ := run(t, probeArgs(kc, "--group", "batch", "-o", "json")...)
	var rep probe.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Truncated != 3 || strings.Count(out, `"truncated": true`) != 4 {
		t.Errorf("summary %+v and %d answers marked truncated: want 3 results, 4 answers (jobs list: kas-a both, kas-b normal; cronjobs list: kas-b forced local)",
			rep.Summary, strings.Count(out, `"truncated": true`))
	}
}
