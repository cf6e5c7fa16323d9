package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// EnvDiscoveryCapture names a directory (../../pkg/peerdiscovery/testdata/<name>) into which
// TestDiscovery writes the snapshots and served documents that pkg/peerdiscovery's unit tests
// and the `discovery` golden tests replay.
const EnvDiscoveryCapture = "MVPCTL_E2E_DISCOVERY_CAPTURE"

// discExpectedList is the part of `mvpctl discovery expected -o json` the test reads.
type discExpectedList struct {
	Kind  string `json:"kind"`
	Items []struct {
		Server string `json:"server"`
		Status string `json:"status"`
		ETag   string `json:"etag"`
		Peers  []struct {
			Name string `json:"name"`
		} `json:"peers"`
	} `json:"items"`
}

// discReport is the part of `mvpctl discovery diff -o json` (kind: DiscoveryReport) the test
// reads.
type discReport struct {
	Kind    string `json:"kind"`
	Partial bool   `json:"partial"`
	Servers []struct {
		Name         string `json:"name"`
		Status       string `json:"status"`
		ExpectedETag string `json:"expectedETag"`
		ServedETag   string `json:"servedETag"`
		ETagMatch    *bool  `json:"etagMatch"`
		Entries      []struct {
			Class    string   `json:"class"`
			Change   string   `json:"change"`
			Group    string   `json:"group"`
			Version  string   `json:"version"`
			Resource string   `json:"resource"`
			ServedBy []string `json:"servedBy"`
		} `json:"entries"`
	} `json:"servers"`
	Summary struct {
		Stale, Missing, Unexpected, Ordering, Metadata int
		Result                                         string
	} `json:"summary"`
}

// discDiff takes a fresh snapshot through kubeconfig and runs `mvpctl discovery diff` on it.
func discDiff(t *testing.T, dir, name, kubeconfig string) (string, mvpctlResult, discReport) {
	t.Helper()
	file := filepath.Join(dir, name+".json")
	if r := runMvpctl(t, "snapshot", "-o", "json", "-f", file, "--kubeconfig", kubeconfig); r.Exit != 0 && r.Exit != 2 {
		t.Fatalf("%s", r)
	}
	r := runMvpctl(t, "discovery", "diff", "--snapshot", file, "-o", "json")
	var rep discReport
	if r.Exit == 1 {
		t.Fatalf("%s", r)
	}
	if err := json.Unmarshal(r.Stdout, &rep); err != nil || rep.Kind != "DiscoveryReport" {
		t.Fatalf("%s\ndecoding the report: %v\n%s", r, err, r.Stdout)
	}
	return file, r, rep
}

// discPoll repeats f every second until it returns "" or the timeout passes, and returns the
// last complaint ("" on success) and how long it took.
func discPoll(timeout time.Duration, f func() string) (string, time.Duration) {
	t0 := time.Now()
	for {
		why := f()
		if why == "" || time.Since(t0) > timeout {
			return why, time.Since(t0)
		}
		time.Sleep(time.Second)
	}
}

func discSummary(rep discReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "result %s (stale %d, missing %d, unexpected %d, ordering %d, metadata %d)", rep.Summary.Result,
		rep.Summary.Stale, rep.Summary.Missing, rep.Summary.Unexpected, rep.Summary.Ordering, rep.Summary.Metadata)
	for _, s := range rep.Servers {
		fmt.Fprintf(&b, "; %s %s", s.Name, s.Status)
		for i, e := range s.Entries {
			if i == 6 {
				fmt.Fprintf(&b, " …(%d)", len(s.Entries))
				break
			}
			fmt.Fprintf(&b, " [%s %s %s/%s/%s]", e.Class, e.Change, e.Group, e.Version, e.Resource)
		}
	}
	return b.String()
}

// discCapture writes data gzipped into the capture directory, when capturing.
func discCapture(t *testing.T, name string, data []byte) {
	t.Helper()
	dir := os.Getenv(EnvDiscoveryCapture)
	if dir == "" {
		return
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(data)
	zw.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".gz"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("captured %s (%d bytes, %d gzipped)", name, len(data), buf.Len())
}

// TestDiscovery checks `mvpctl discovery` on a real mixed control plane: kas-a (v1.36.3, every
// API), kas-b (v1.36.3, batch/v1 off) and kas-c (v1.37.1, defaults).
//
//  1. Steady state: the expected document of every server equals the one it serves, byte for
//     byte, and the expected ETag equals the served ETag; `discovery diff` is clean (exit 0).
//  2. kas-a stopped gracefully (SIGTERM): kas-b and kas-c forget it and recompute; the diff is
//     clean again.
//  3. kas-c stopped gracefully too: kas-b has no peer left, and (1.36+ defect, docs/behaviour.md §11.5)
//     keeps serving its last merged document. The diff (fresh snapshot) reports what only
//     kas-c served — batch/v1 among it — as stale, exit 3, while kas-b answers 404 for jobs.
//  4. A CRD created through kas-b changes its local discovery, which invalidates the cached
//     document: the diff is clean again.
//
// Skipped with -short.
func TestDiscovery(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the discovery control plane")
	}
	t0 := time.Now()
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36, ExtraFlags: []string{"--runtime-config=api/all=true"}},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36, ExtraFlags: []string{"--runtime-config=api/all=true,batch/v1=false"}},
		harness.ServerSpec{Name: "kas-c", Version: harness.V1_37},
	)
	t.Logf("timing: control plane up in %s", time.Since(t0).Round(time.Millisecond))
	b := cp.Server("kas-b")
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	ok := t.Run("steady state: expected equals served", func(t *testing.T) {
		n := 0
		var last string
		why, took := discPoll(60*time.Second, func() string {
			n++
			file, r, rep := discDiff(t, dir, fmt.Sprintf("steady-%d", n), b.Kubeconfig)
			if r.Exit != 0 || rep.Summary.Result != "clean" {
				return fmt.Sprintf("diff exit %d: %s", r.Exit, discSummary(rep))
			}
			er := runMvpctl(t, "discovery", "expected", "--snapshot", file, "-o", "json")
			var list discExpectedList
			if er.Exit != 0 || json.Unmarshal(er.Stdout, &list) != nil || list.Kind != "ExpectedDiscoveryList" {
				t.Fatalf("%s\n%s", er, er.Stdout)
			}
			var problems []string
			bodies := map[string][]byte{}
			for _, item := range list.Items {
				s := cp.Server(item.Server)
				if item.Status != "peer-aggregated" || len(item.Peers) != 2 {
					problems = append(problems, fmt.Sprintf("%s: status %s with %d peers, want peer-aggregated with 2", item.Server, item.Status, len(item.Peers)))
					continue
				}
				live, err := s.Get(ctx, "/apis", "Accept", harness.AcceptAggregated)
				if err != nil || live.StatusCode != http.StatusOK {
					t.Fatalf("%s: GET /apis: %v %v", s.Name, err, live)
				}
				if got := live.Header.Get("ETag"); got != item.ETag {
					problems = append(problems, fmt.Sprintf("%s: served ETag %.20s…, expected %.20s…", s.Name, got, item.ETag))
				}
				one := runMvpctl(t, "discovery", "expected", "--snapshot", file, "--apiserver", s.Name, "-o", "json")
				if one.Exit != 0 {
					t.Fatalf("%s", one)
				}
				if !bytes.Equal(one.Stdout, live.Body) {
					problems = append(problems, fmt.Sprintf("%s: expected document (%d bytes) differs from the served one (%d bytes)", s.Name, len(one.Stdout), len(live.Body)))
				}
				if want := "ETag: " + item.ETag; !strings.Contains(string(one.Stderr), want) {
					problems = append(problems, fmt.Sprintf("%s: stderr %q lacks %q", s.Name, one.Stderr, want))
				}
				bodies[s.Name] = live.Body
			}
			if len(problems) > 0 {
				return strings.Join(problems, "; ")
			}
			for _, s := range rep.Servers {
				if s.ETagMatch == nil || !*s.ETagMatch || s.ExpectedETag != s.ServedETag {
					return fmt.Sprintf("%s: report ETag match %v (%.20s… vs %.20s…)", s.Name, s.ETagMatch, s.ExpectedETag, s.ServedETag)
				}
			}
			last = file
			if data, err := os.ReadFile(file); err == nil {
				discCapture(t, "steady.snapshot.json", data)
			}
			for name, body := range bodies {
				discCapture(t, "steady-"+name+"-default.json", body)
			}
			return ""
		})
		if why != "" {
			t.Fatalf("after %s (%d snapshots): %s", took.Round(time.Millisecond), n, why)
		}
		t.Logf("timing: expected == served (documents and ETags) for all 3 servers after %s (%d snapshot(s)); %s", took.Round(time.Millisecond), n, last)
		// Live: without --snapshot, diff takes its own snapshot through the kubeconfig.
		live := runMvpctl(t, "discovery", "diff", "--kubeconfig", b.Kubeconfig)
		if live.Exit != 0 || !strings.Contains(string(live.Stdout), "Result: clean (3 checked;") {
			t.Errorf("live diff: %s\n%s", live, live.Stdout)
		}
		t.Logf("timing: live `mvpctl discovery diff` took %s", live.Took.Round(time.Millisecond))
	})
	if !ok {
		return
	}

	ok = t.Run("graceful stop of kas-a: still clean", func(t *testing.T) {
		t1 := time.Now()
		if err := cp.Stop("kas-a"); err != nil {
			t.Fatal(err)
		}
		t.Logf("timing: kas-a stopped (SIGTERM) in %s", time.Since(t1).Round(time.Millisecond))
		n := 0
		why, took := discPoll(60*time.Second, func() string {
			n++
			_, r, rep := discDiff(t, dir, fmt.Sprintf("stop-a-%d", n), b.Kubeconfig)
			if r.Exit != 0 || len(rep.Servers) != 2 {
				return fmt.Sprintf("diff exit %d, %d servers: %s", r.Exit, len(rep.Servers), discSummary(rep))
			}
			return ""
		})
		if why != "" {
			t.Fatalf("after %s: %s", took.Round(time.Millisecond), why)
		}
		t.Logf("timing: diff clean %s after kas-a's stop (%d snapshot(s))", took.Round(time.Millisecond), n)
	})
	if !ok {
		return
	}

	ok = t.Run("graceful stop of the last peer: stale entries", func(t *testing.T) {
		t1 := time.Now()
		if err := cp.Stop("kas-c"); err != nil {
			t.Fatal(err)
		}
		t.Logf("timing: kas-c stopped (SIGTERM) in %s", time.Since(t1).Round(time.Millisecond))
		var rep discReport
		var r mvpctlResult
		var file string
		n := 0
		why, took := discPoll(30*time.Second, func() string {
			n++
			file, r, rep = discDiff(t, dir, fmt.Sprintf("stale-%d", n), b.Kubeconfig)
			if len(rep.Servers) != 1 || rep.Servers[0].Name != "kas-b" {
				return fmt.Sprintf("servers in the snapshot: %s (kas-c's identity lease not yet deleted?)", discSummary(rep))
			}
			return ""
		})
		if why != "" {
			t.Fatalf("after %s: %s", took.Round(time.Millisecond), why)
		}
		t.Logf("diff after kas-c's stop: %s", discSummary(rep))
		t.Logf("table:\n%s", runMvpctl(t, "discovery", "diff", "--snapshot", file).Stdout)
		if r.Exit != 3 || rep.Summary.Result != "blocking" || rep.Summary.Stale == 0 {
			t.Fatalf("want exit 3 with stale entries (docs/behaviour.md §11.5); got %s\n%s", r, discSummary(rep))
		}
		staleBatch, staleStatus := false, false
		for _, e := range rep.Servers[0].Entries {
			if e.Class == "stale" && e.Group == "batch" && (e.Version == "" || e.Version == "v1") {
				staleBatch = true
			}
			if e.Class == "stale" && e.Group == "storage.k8s.io" && e.Version == "v1" && e.Resource == "csinodes/status" {
				staleStatus = true
			}
			if e.Class == "stale" && len(e.ServedBy) > 0 {
				t.Errorf("stale entry %s/%s/%s names servers %v", e.Group, e.Version, e.Resource, e.ServedBy)
			}
		}
		if !staleBatch {
			t.Errorf("batch/v1 (served only by the stopped kas-c) is not reported stale: %s", discSummary(rep))
		}
		// csinodes/status: a 1.37 subresource the merge added to kas-b's 1.36 csinodes.
		if !staleStatus {
			t.Errorf("storage.k8s.io/v1/csinodes/status is not reported stale: %s", discSummary(rep))
		}
		if s := rep.Servers[0]; s.ETagMatch == nil || *s.ETagMatch {
			t.Errorf("ETag match = %v, want false (the served document is the stale merge)", s.ETagMatch)
		}
		// What a client following the stale entry gets.
		jobs, err := b.Get(ctx, jobsPath, "Accept", "application/json")
		if err != nil {
			t.Fatal(err)
		}
		if jobs.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s on kas-b = %d, want 404 (stale advertised entry)", jobsPath, jobs.StatusCode)
		}
		const csinode = `{"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"disc-node"},"spec":{"drivers":[]}}`
		cr, err := b.Do(ctx, http.MethodPost, "/apis/storage.k8s.io/v1/csinodes",
			http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}}, strings.NewReader(csinode))
		if err != nil || cr.StatusCode != http.StatusCreated {
			t.Fatalf("creating a CSINode: %v %v", err, cr)
		}
		st, err := b.Get(ctx, "/apis/storage.k8s.io/v1/csinodes/disc-node/status", "Accept", "application/json")
		if err != nil {
			t.Fatal(err)
		}
		if st.StatusCode != http.StatusNotFound {
			t.Errorf("GET csinodes/disc-node/status on kas-b = %s, want 404 (the object exists; the subresource is stale)", st)
		}
		t.Logf("kas-b: jobs list %d, existing CSINode's status %d: %.200s", jobs.StatusCode, st.StatusCode, st.Body)
		if data, err := os.ReadFile(file); err == nil {
			discCapture(t, "stale.snapshot.json", data)
		}
	})
	if !ok {
		return
	}

	t.Run("a local discovery change clears the stale document", func(t *testing.T) {
		crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"widgets.discovery.mvpctl.io"},
"spec":{"group":"discovery.mvpctl.io","scope":"Namespaced",
"names":{"plural":"widgets","singular":"widget","kind":"Widget"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`
		r, err := b.Do(ctx, http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
			http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}}, strings.NewReader(crd))
		if err != nil || r.StatusCode != http.StatusCreated {
			t.Fatalf("creating the CRD: %v %v", err, r)
		}
		n := 0
		var rep discReport
		why, took := discPoll(60*time.Second, func() string {
			n++
			var res mvpctlResult
			_, res, rep = discDiff(t, dir, fmt.Sprintf("cleared-%d", n), b.Kubeconfig)
			if res.Exit != 0 {
				return fmt.Sprintf("diff exit %d: %s", res.Exit, discSummary(rep))
			}
			return ""
		})
		if why != "" {
			t.Fatalf("after %s: %s", took.Round(time.Millisecond), why)
		}
		t.Logf("timing: stale entries cleared %s after the CRD was created (%d snapshot(s)): %s", took.Round(time.Millisecond), n, discSummary(rep))
	})
	t.Logf("timing: TestDiscovery took %s", time.Since(t0).Round(time.Millisecond))
}
