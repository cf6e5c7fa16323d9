package process

import (
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestEndChildren: a child that ignores SIGTERM, and the child it started in the background,
// are both gone after endChildren, within its bounds, and none is left a zombie.
func TestEndChildren(t *testing.T) {
	marker := t.TempDir() + "/started"
	cmd := exec.Command("/bin/sh", "-c", "trap '' TERM\nsleep 300 &\ntouch "+marker+"\nwait\n")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the child never started")
		}
	}
	pids := liveDescendants(os.Getpid())
	if len(pids) < 2 {
		t.Fatalf("descendants %v, want the shell and its sleep", pids)
	}
	start := time.Now()
	endChildren(50*time.Millisecond, 400*time.Millisecond)
	// By design 50 ms + 400 ms and the polls between; 2 s leaves a loaded machine four times
	// that, and a child not killed keeps it for its 300 s.
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("endChildren took %s", took)
	}
	// A killed process ends when the kernel next runs it, which on a loaded machine may come
	// after endChildren returns: its orphaned sleep is then no descendant any more. It must be
	// gone within the same 2 s.
	for _, pid := range pids {
		for Alive(pid) && time.Since(start) < 2*time.Second {
			time.Sleep(5 * time.Millisecond)
		}
		if Alive(pid) {
			t.Errorf("process %d still alive %s after endChildren began", pid, time.Since(start))
		}
	}
	if left := liveDescendants(os.Getpid()); len(left) > 0 {
		t.Errorf("left %v", left)
	}
}

func TestProcStat(t *testing.T) {
	state, ppid := procStat(os.Getpid())
	if state == 0 || ppid != os.Getppid() {
		t.Errorf("procStat(self) = %q, %d; want a state and parent %d", state, ppid, os.Getppid())
	}
	if Alive(1 << 30) {
		t.Error("a pid that cannot exist is alive")
	}
}

// TestWatchChildOutput: a child writing past the bound is killed, with what it started, and
// the reason is heard; nothing is checked while no plugin may run.
func TestWatchChildOutput(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "while :; do head -c 1048576 /dev/zero; done > /dev/null")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var mayRun atomic.Bool
	reasons := make(chan string, 4)
	done := make(chan struct{})
	defer close(done)
	go watchChildOutput(8<<20, 5*time.Millisecond, mayRun.Load, func(r string) { reasons <- r }, done)
	time.Sleep(200 * time.Millisecond)
	if len(reasons) > 0 || !Alive(cmd.Process.Pid) {
		t.Fatal("stopped while no plugin could run")
	}
	mayRun.Store(true)
	select {
	case r := <-reasons:
		if !strings.Contains(r, "wrote more than 8 MiB") {
			t.Errorf("reason %q", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("never stopped")
	}
	if err := cmd.Wait(); err == nil {
		t.Error("the child was not killed")
	}
}

// TestWatchChildOutputPipeline: a plugin whose first process writes past the bound while the
// last has written nothing is stopped as a whole, so it ends by the signal: spared, the last
// one would end the plugin with status 0 and what was written be taken for its answer.
func TestWatchChildOutputPipeline(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "head -c 1000000000 /dev/zero | wc -c >/dev/null")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	reasons := make(chan string, 8)
	done := make(chan struct{})
	defer close(done)
	go watchChildOutput(8<<20, 5*time.Millisecond, func() bool { return true }, func(r string) { reasons <- r }, done)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("the plugin ended with %v, want killed by SIGKILL", err)
	}
	select { // the kill comes before the reason: the plugin may be reaped first
	case <-reasons:
	case <-time.After(5 * time.Second):
		t.Error("stopped heard no reason")
	}
}
