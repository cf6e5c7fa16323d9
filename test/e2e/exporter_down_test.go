package e2e

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestExporterAllServersGone: the exporter follows two real apiservers, both up; then both are
// killed, so that no read gets anything (not even the identity leases), and
// mvpctl_apiserver_up goes to 0 for both while /readyz answers 503. /metrics stays valid
// exposition for promtool throughout.
func TestExporterAllServersGone(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the v1.36 control plane")
	}
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	get := startExporter(ctx, t, cp.Server("kas-a").Kubeconfig)
	up := func(body, server string) string {
		for _, line := range strings.Split(body, "\n") {
			if v, ok := strings.CutPrefix(line, `mvpctl_apiserver_up{server="`+server+`"} `); ok {
				return v
			}
		}
		return ""
	}
	var body string
	waitFor(t, "both servers up on /metrics", 60*time.Second, func() bool {
		_, body = get("/metrics")
		return up(body, "kas-a") == "1" && up(body, "kas-b") == "1"
	})
	checkExposition(t, body)
	for _, name := range []string{"kas-a", "kas-b"} {
		if err := cp.Kill(name); err != nil {
			t.Fatalf("SIGKILL %s: %v", name, err)
		}
	}
	killed := time.Now()
	waitFor(t, "both servers down on /metrics", 60*time.Second, func() bool {
		_, body = get("/metrics")
		return up(body, "kas-a") == "0" && up(body, "kas-b") == "0"
	})
	t.Logf("mvpctl_apiserver_up 0 for both %s after the SIGKILLs", time.Since(killed).Round(time.Millisecond))
	checkExposition(t, body)
	if code, _ := get("/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz answers %d with every apiserver gone, want 503", code)
	}
	time.Sleep(2 * time.Second) // later reads that get nothing keep them down
	if _, body = get("/metrics"); up(body, "kas-a") != "0" || up(body, "kas-b") != "0" {
		t.Errorf("a server up again with every apiserver gone:\n%s", body)
	}
}

// checkExposition runs promtool's parser over a /metrics body: it must be valid exposition.
func checkExposition(t *testing.T, body string) {
	t.Helper()
	bin, err := harness.Promtool()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin.Path, "check", "metrics")
	cmd.Stdin = bytes.NewReader([]byte(body))
	out, err := cmd.CombinedOutput()
	if err != nil && (strings.Contains(string(out), "error while linting") || strings.Contains(string(out), "parse")) {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

// startExporter starts `mvpctl watch` as an exporter (a read every 500 ms) with kubeconfig,
// stopped when the test ends, and returns a GET of one of its paths: the status and the body
// (0 while it does not answer).
func startExporter(ctx context.Context, t *testing.T, kubeconfig string) func(path string) (int, string) {
	t.Helper()
	addr := freeLocalAddr(t)
	exporter := exec.CommandContext(ctx, mvpctlBinary(t), "watch", "--metrics-address", addr, "--interval", "500ms", "-o", "json", "--kubeconfig", kubeconfig)
	if err := exporter.Start(); err != nil { // its events and warnings: not read here
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = exporter.Process.Kill(); _ = exporter.Wait() })
	return func(path string) (int, string) {
		r, err := http.Get("http://" + addr + path)
		if err != nil {
			return 0, ""
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return r.StatusCode, string(b)
	}
}
