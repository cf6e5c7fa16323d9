package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/kubeflags"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/watch"
)

// noKubeconfig leaves the process with no kubeconfig and outside any cluster.
func noKubeconfig(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
}

// TestExporterNotPointed: no kubeconfig and not in a cluster is one line saying how to point
// the exporter, exit 1, before anything listens.
func TestExporterNotPointed(t *testing.T) {
	noKubeconfig(t)
	stdout, stderr, code := run(t, "watch", "--metrics-address", "127.0.0.1:0")
	if code != ExitError || stdout != "" || strings.Count(stderr, "\n") != 1 ||
		!strings.HasPrefix(stderr, "error: no kubeconfig and not in a cluster: give --kubeconfig") || !strings.Contains(stderr, "KUBERNETES_SERVICE_HOST") {
		t.Errorf("exit %d, stdout %q, stderr %q: want exit 1 and the one line", code, stdout, stderr)
	}
}

// TestExporterInClusterConfig: in a pod (the service environment variables, a service account
// directory) without a kubeconfig, the connection flags point at the kubernetes Service with
// the account's CA and token file; a missing token is named; a kubeconfig wins.
func TestExporterInClusterConfig(t *testing.T) {
	noKubeconfig(t)
	dir := t.TempDir()
	for _, f := range []string{"token", "ca.crt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("sha256~not-a-real-token"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("KUBERNETES_SERVICE_HOST", "fd00::1")
	t.Setenv("KUBERNETES_SERVICE_PORT", "443")
	t.Setenv(envServiceAccountDir, dir)
	g := &globalOptions{configFlags: kubeflags.New()}
	var errOut bytes.Buffer
	if err := useInClusterConfig(g, &errOut); err != nil {
		t.Fatal(err)
	}
	cfg, err := g.configFlags.ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://[fd00::1]:443" || cfg.CAFile != filepath.Join(dir, "ca.crt") || cfg.BearerTokenFile != filepath.Join(dir, "token") {
		t.Errorf("config: host %q, CA %q, token file %q", cfg.Host, cfg.CAFile, cfg.BearerTokenFile)
	}
	if got := errOut.String(); !strings.Contains(got, "in-cluster: https://[fd00::1]:443") || strings.Contains(got, "not-a-real-token") {
		t.Errorf("stderr %q: want the server named, never the token", got)
	}

	if err := os.Remove(filepath.Join(dir, "token")); err != nil {
		t.Fatal(err)
	}
	g = &globalOptions{configFlags: kubeflags.New()}
	if err := useInClusterConfig(g, io.Discard); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "token")) {
		t.Errorf("no token: %v; want the file named", err)
	}

	kubeconfig := writeUnreachableKubeconfig(t)
	g = &globalOptions{configFlags: kubeflags.New()}
	g.configFlags.KubeConfig = kubeconfig
	if err := useInClusterConfig(g, io.Discard); err != nil || g.configFlags.ServerOverride() != "" {
		t.Errorf("with a kubeconfig: %v, server override %q; want the kubeconfig used", err, g.configFlags.ServerOverride())
	}
}

// writeUnreachableKubeconfig is a kubeconfig whose server nothing listens on.
func writeUnreachableKubeconfig(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	kc := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://` + addr + `"}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
users: [{name: u, user: {token: sha256~exporter-test-secret}}]
`
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// freeAddr is a local address nothing listens on (yet).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestExporterUnreachablePlane: with the plane unreachable the exporter keeps serving: /healthz
// is ok, /readyz fails with the reason, /metrics counts the failed reads by cause (with the
// process and Go collectors) and carries no credential; a bad address fails at once.
func TestExporterUnreachablePlane(t *testing.T) {
	kubeconfig := writeUnreachableKubeconfig(t)
	addr := freeAddr(t)
	type result struct {
		stderr string
		code   int
	}
	done := make(chan result, 1)
	go func() {
		_, stderr, code := run(t, "watch", "--metrics-address", addr, "--kubeconfig", kubeconfig, "--interval", "200ms", "--timeout-total", "6s")
		done <- result{stderr, code}
	}()
	get := func(path string) (int, string) {
		r, err := http.Get("http://" + addr + path)
		if err != nil {
			return 0, err.Error()
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return r.StatusCode, string(b)
	}
	var metrics string
	// Reads every 200 ms for 6 s: two failed reads are due after 0.2 s; on a loaded machine
	// they may come seconds later, and a poll may see the count pass 2 between two looks.
	failedTwice := regexp.MustCompile(`mvpctl_read_errors_total\{cause="connection-refused"\} ([2-9]|[1-9][0-9]+)\n`)
	deadline := time.Now().Add(5500 * time.Millisecond)
	for {
		code, body := get("/metrics")
		if code == http.StatusOK && failedTwice.MatchString(body) {
			metrics = body
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no /metrics with two failed reads counted: %d\n%s", code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, want := range []string{"mvpctl_last_read_success 0", "process_resident_memory_bytes", "go_goroutines", `mvpctl_reads_total{result="failed"}`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
	if strings.Contains(metrics, "exporter-test-secret") {
		t.Error("/metrics carries the kubeconfig's token")
	}
	if code, body := get("/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "connection refused") {
		t.Errorf("/readyz: %d %q; want 503 with the reason", code, body)
	}
	if code, _ := get("/healthz"); code != http.StatusOK {
		t.Errorf("/healthz: %d, want 200", code)
	}
	r := <-done
	if r.code != ExitError || strings.Count(r.stderr, "warning: cannot read the control plane") != 1 {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 (nothing was ever read) and the failure said once", r.code, r.stderr)
	}

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	_, stderr, code := run(t, "watch", "--metrics-address", busy.Addr().String(), "--kubeconfig", kubeconfig)
	if code != ExitError || !strings.HasPrefix(stderr, "error: --metrics-address "+busy.Addr().String()) {
		t.Errorf("an address in use: exit %d, stderr %q", code, stderr)
	}
}

// TestExporterReadinessFlags: --to and --preflight-every need --metrics-address, --to a
// version with a profile, --preflight-every no negative count: each one line, exit 1, before
// any read.
func TestExporterReadinessFlags(t *testing.T) {
	noKubeconfig(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--to", "1.37"}, "error: --to and --preflight-every configure the exporter's upgrade readiness: give --metrics-address"},
		{[]string{"--preflight-every", "3"}, "error: --to and --preflight-every configure the exporter's upgrade readiness: give --metrics-address"},
		{[]string{"--metrics-address", "127.0.0.1:0", "--preflight-every", "-1"}, "error: --preflight-every cannot be negative, got -1"},
		{[]string{"--metrics-address", "127.0.0.1:0", "--to", "1.99"}, "error: --to: "},
		{[]string{"--metrics-address", "127.0.0.1:0", "--to", "next"}, "error: --to: "},
	} {
		stdout, stderr, code := run(t, append([]string{"watch"}, tc.args...)...)
		if code != ExitError || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q: want exit 1 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

// TestExporterReadinessEnabled: the exporter runs the readiness gate against --to on the
// reads it is given; --preflight-every 0 turns it off.
func TestExporterReadinessEnabled(t *testing.T) {
	start, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.36"}, {Name: "b", Version: "1.36"}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flags exporterFlags
		runs  int
		to    string
	}{
		{exporterFlags{address: "127.0.0.1:0", preflightEvery: watch.DefaultReadinessEvery}, 1, "1.37"},
		{exporterFlags{address: "127.0.0.1:0", preflightEvery: 2, to: "1.37.1"}, 1, "1.37.1"},
		{exporterFlags{address: "127.0.0.1:0"}, 0, ""},
	} {
		x, err := startExporter(&tc.flags, &watch.Loop{}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		x.metrics.Observe(watch.Read{Started: start.TakenAt, Ended: start.TakenAt, Snapshot: start})
		x.stop()
		r, err := x.metrics.LastReadiness()
		if x.metrics.GateRuns() != tc.runs || err != nil || (tc.runs > 0) != (r != nil) || (r != nil && r.To != tc.to) {
			t.Errorf("%+v: %d runs, readiness %+v, %v; want %d runs against %q", tc.flags, x.metrics.GateRuns(), r, err, tc.runs, tc.to)
		}
	}
}
