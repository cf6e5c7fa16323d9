package e2e

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestWatchKubeconfigServerDown: three v1.36 servers, a watch whose kubeconfig names kas-a
// alone (kubeadm's admin.conf without a balancer). kas-a is SIGKILLed; while it is down, kas-c
// is SIGKILLed and restarted; then kas-a is restarted. The watch must report kas-c going down
// and coming back while kas-a is still down — it lists the identity leases through an
// apiserver its last read reached, says so once, and goes back to kas-a when it answers.
func TestWatchKubeconfigServerDown(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the SIGKILLs")
	}
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36},
		harness.ServerSpec{Name: "kas-c", Version: harness.V1_36},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	var stderr bytes.Buffer
	cmd := exec.Command(mvpctlBinary(t), "watch", "--interval", "500ms", "-o", "json", "--kubeconfig", cp.Server("kas-a").Kubeconfig)
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	type timed struct {
		line watchLine
		seen time.Time // when the test read it
	}
	var (
		mu    sync.Mutex
		lines []timed
	)
	readDone := followWatch(t, stdout, &stderr, func(l watchLine, _ string) {
		mu.Lock()
		lines = append(lines, timed{l, time.Now()})
		mu.Unlock()
	})
	step := func(what string, f func() error) time.Time {
		t.Helper()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		t.Logf("%s done", what)
		return time.Now()
	}
	time.Sleep(time.Second)
	aDown := step("SIGKILL kas-a (the kubeconfig's server)", func() error { return cp.Kill("kas-a") })
	time.Sleep(2 * time.Second)
	cDown := step("SIGKILL kas-c", func() error { return cp.Kill("kas-c") })
	time.Sleep(3 * time.Second)
	step("restart kas-c", func() error { return cp.Restart(ctx, "kas-c") })
	time.Sleep(3 * time.Second)
	aBack := time.Now()
	step("restart kas-a", func() error { return cp.Restart(ctx, "kas-a") })
	time.Sleep(3 * time.Second)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitErr := cmd.Wait()
	<-readDone
	t.Logf("watch exit: %v; stderr:\n%s", waitErr, stderr.String())

	mu.Lock()
	defer mu.Unlock()
	var cDownSeen, cUpSeen, aUpSeen time.Time
	for _, l := range lines {
		t.Logf("%s %s %s %s", l.seen.Format("15:04:05.000"), l.line.Type, l.line.Server, l.line.Error)
		switch {
		case l.line.Type == "server-down" && l.line.Server == "kas-c" && cDownSeen.IsZero():
			cDownSeen = l.seen
		case l.line.Type == "server-up" && l.line.Server == "kas-c" && !cDownSeen.IsZero() && cUpSeen.IsZero():
			cUpSeen = l.seen
		case l.line.Type == "server-up" && l.line.Server == "kas-a" && l.seen.After(aDown) && aUpSeen.IsZero():
			aUpSeen = l.seen
		}
	}
	if cDownSeen.IsZero() || cDownSeen.Before(cDown) || !cDownSeen.Before(aBack) {
		t.Errorf("kas-c down (SIGKILL at %s) seen at %s: want it seen while kas-a, the kubeconfig's server, was down (until %s)",
			cDown.Format("15:04:05.000"), cDownSeen.Format("15:04:05.000"), aBack.Format("15:04:05.000"))
	}
	if cUpSeen.IsZero() || !cUpSeen.Before(aBack) {
		t.Errorf("kas-c back seen at %s: want it seen while kas-a was down (until %s)", cUpSeen.Format("15:04:05.000"), aBack.Format("15:04:05.000"))
	}
	if aUpSeen.IsZero() {
		t.Errorf("kas-a never seen up again after its restart")
	}
	if n := strings.Count(stderr.String(), "does not answer the identity-lease list: listed through"); n != 1 {
		t.Errorf("stderr says %d times that the leases were listed through another apiserver, want once:\n%s", n, stderr.String())
	}
}
