//go:build linux

package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// blockedCall is a system call a process waits in, on a file descriptor (-1: any): a signal
// row sends its signal only once the process waits there, not at a fixed time after the
// start, which a busy machine can reach before the process has set up its signal handling
// (seen: SIGINT 0.7 s after the start of `simulate upgrade` at a load of 24 killed it before
// its handler was installed: exit -1, nothing said).
type blockedCall struct {
	name string // read, write, openat
	fd   int
	// fallback is when the system call cannot be seen (no /proc/PID/task/TID/syscall for
	// this user, an architecture not listed): a time after the start.
	fallback func() bool
	once     sync.Once
}

// syscallNumbers are the numbers of the system calls blockedCall knows, per architecture.
var syscallNumbers = map[string]map[string]string{
	"amd64": {"read": "0", "write": "1", "openat": "257"},
	"arm64": {"read": "63", "write": "64", "openat": "56"},
}

// in says whether a thread of pid waits in the call (on the fd): /proc/PID/task/TID/syscall
// starts with the call's number and its first argument.
func (b *blockedCall) in(t *testing.T, pid int) bool {
	nr, ok := syscallNumbers[runtime.GOARCH][b.name]
	tasks, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	if !ok || err != nil {
		b.once.Do(func() {
			t.Logf("cannot see the process's system calls (%s, %v): a fixed time instead", runtime.GOARCH, err)
		})
		return b.fallback()
	}
	seen := false
	for _, task := range tasks {
		raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "task", task.Name(), "syscall"))
		if err != nil {
			continue
		}
		seen = true
		f := strings.Fields(string(raw))
		if len(f) >= 2 && f[0] == nr && (b.fd < 0 || f[1] == "0x"+strconv.FormatInt(int64(b.fd), 16)) {
			return true
		}
	}
	if !seen {
		b.once.Do(func() { t.Logf("cannot read the system calls of process %d: a fixed time instead", pid) })
		return b.fallback()
	}
	return false
}

// processCPU reads a live process's CPU time: this test's own, after it burned some, and
// nothing for a process that does not exist.
func TestProcessCPU(t *testing.T) {
	// Burn CPU until the reading has grown by 100ms: on a busy machine 200ms of wall can give
	// this process less than that, so the bound is on the wall time the growth may take.
	before := processCPU(os.Getpid())
	for deadline := time.Now().Add(20 * time.Second); processCPU(os.Getpid())-before < 100*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatalf("CPU %s, then %s after 20s of burning it", before, processCPU(os.Getpid()))
		}
		for end := time.Now().Add(10 * time.Millisecond); time.Now().Before(end); {
		}
	}
	if got := processCPU(1 << 30); got != 0 {
		t.Errorf("no such process: %s", got)
	}
}
