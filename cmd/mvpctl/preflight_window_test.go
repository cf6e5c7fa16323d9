package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestPreflightEvidenceWindow: the shipped example whose counters cover 5 seconds, with no
// request of an alpha or beta API, does not pass at --fail-on blocking, and says the span and
// the window; the same counters covering more than the window pass; a shorter window, stated,
// is taken.
func TestPreflightEvidenceWindow(t *testing.T) {
	const example = "../../examples/skew-counters.yaml"
	longer := func(t *testing.T) string {
		snap, err := snapshot.LoadFile(example)
		if err != nil {
			t.Fatal(err)
		}
		for i := range snap.Servers {
			started := snap.Servers[i].Requests.ReadAt.Add(-8 * 24 * time.Hour)
			snap.Servers[i].Requests.StartedAt = &started
		}
		path := filepath.Join(t.TempDir(), "skew-counters-8d.yaml")
		if err := snap.WriteFile(path, false); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		name string
		path func(t *testing.T) string
		args []string
		exit int
		says []string
	}{
		{"counters of 5s: not a pass, naming the span and the window", func(*testing.T) string { return example }, nil, ExitFindings,
			[]string{"storage.k8s.io/v1beta1/volumeattributesclasses", "the evidence read looks back less than the 7d evidence window (--evidence-window): the request counters of kas-a 5s, kas-b 5s", "--prometheus"}},
		{"counters of 8 days: a pass at --fail-on blocking", longer, nil, ExitOK,
			[]string{"no request counted on kas-a (since it started 8d before 2026-11-23T09:36:29Z)"}},
		{"Prometheus evidence over 8 days: the client it kept across restarts blocks, named; the rest pass", func(*testing.T) string { return "../../examples/skew-prometheus.yaml" }, nil, ExitFindings,
			[]string{"clients use it: 30 request(s) on instance 127.0.0.1:38219 kept by Prometheus over 8d, apiserver_requested_deprecated_apis: asked for in the last 8d, removed in 1.37",
				"no request kept by Prometheus http://prometheus.monitoring:9090 (oldest sample 8d before 2026-11-23T09:36:29Z)", "Result: blocking (1 blocking, 20 warning"}},
		{"counters of 5s with a 4s window stated: a pass at --fail-on blocking", func(*testing.T) string { return example }, []string{"--evidence-window", "4s"}, ExitOK,
			[]string{"no request counted on kas-a (since it started 5s before"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, append([]string{"preflight", "--snapshot", tc.path(t), "--to", "1.37", "--fail-on", "blocking", "-o", "wide"}, tc.args...)...)
			if code != tc.exit {
				t.Errorf("exit %d, want %d\n%s\n%s", code, tc.exit, out, errOut)
			}
			for _, s := range tc.says {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
		})
	}
	for _, bad := range [][]string{{"--prometheus-selector", `cluster="x"`}, {"--prometheus", "ftp://x"}, {"--prometheus", "http://p:9090", "--prometheus-selector", "cluster=x"}} {
		if _, errOut, code := run(t, append([]string{"preflight", "--snapshot", example, "--to", "1.37"}, bad...)...); code != ExitError || !strings.Contains(errOut, "--prometheus") {
			t.Errorf("%v: exit %d, stderr %q; want a usage error naming the flag", bad, code, errOut)
		}
	}
	for _, bad := range []string{"0s", "-1h", "7days", "1.5d"} {
		if _, errOut, code := run(t, "preflight", "--snapshot", example, "--to", "1.37", "--evidence-window", bad); code != ExitError || !strings.Contains(errOut, "--evidence-window") {
			t.Errorf("--evidence-window %s: exit %d, stderr %q; want a usage error naming the flag", bad, code, errOut)
		}
	}
}

// TestPreflightPrometheusNotRead: a --prometheus that refuses the credentials makes the read
// partial (exit 2 at --fail-on blocking, where the counters alone would pass over the window
// stated), said in one line on stderr, never a pass.
func TestPreflightPrometheusNotRead(t *testing.T) {
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
	}))
	defer prom.Close()
	out, errOut, code := run(t, "preflight", "--snapshot", "../../examples/skew-counters.yaml", "--to", "1.37", "--fail-on", "blocking", "--evidence-window", "4s", "--prometheus", prom.URL)
	if code != ExitIncomplete {
		t.Errorf("exit %d, want %d\n%s", code, ExitIncomplete, out)
	}
	want := "warning: Prometheus " + prom.URL + " not read: HTTP 401: check the credentials (--prometheus-config) (its client evidence is missing: the result is partial)\n"
	if !strings.Contains(errOut, want) {
		t.Errorf("stderr %q lacks %q", errOut, want)
	}
}
