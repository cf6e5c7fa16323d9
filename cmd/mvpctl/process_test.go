//go:build linux

package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/process"
)

// A process run is one run of the built binary, measured as a whole: exit status, wall time,
// peak RSS, and the processes it started that are still alive after it ended.

// signalAt sends sig to the process once ready reports true (polled), and, when blockedIn is
// set, once the process waits in that system call (blockedIn).
type signalAt struct {
	sig       syscall.Signal
	ready     func() bool
	blockedIn *blockedCall
}

type processRun struct {
	args []string
	env  []string // added to the test's environment
	dir  string   // working directory; checked for leftover files
	sig  *signalAt
	// stdin, when set, is the process's stdin (a pty's replica, say).
	stdin *os.File
	// silentStdin gives the process a pipe for stdin that nobody writes to; blockedStdout, a
	// pipe for stdout that nobody reads.
	silentStdin, blockedStdout bool
}

type processResult struct {
	code  int
	took  time.Duration // from the start, or from the signal when one was sent
	cpu   time.Duration // user+system time of the process and the children it reaped (wait4), from the signal when one was sent
	rssMB float64       // peak RSS of the process, or of the largest child it reaped (wait4)
	// rssStart is the test process's own peak RSS at the start: an rssMB at or under it says
	// only that the process's own peak was not above it (startMeasured).
	rssStart       float64
	stdout, stderr string
	leftover       []string // processes of the run alive after it ended: "pid cmdline"
	files          []string // files left in dir
	load           float64  // the machine's 1-minute load average when the run ended
}

// loadAverage is the 1-minute load average (/proc/loadavg), 0 where it cannot be read.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

var runSerial atomic.Int64

// runProcess runs the binary as r says and measures it. Every process it starts inherits a
// marker in its environment, by which the ones still alive after it ended are found.
func runProcess(t *testing.T, r processRun) processResult {
	t.Helper()
	marker := fmt.Sprintf("MVPCTL_PROCESS_RUN=%d-%d", os.Getpid(), runSerial.Add(1))
	cmd := exec.Command(binary(t), r.args...)
	cmd.Env = append(append(os.Environ(), r.env...), marker)
	cmd.Dir = r.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if r.stdin != nil {
		cmd.Stdin = r.stdin
	}
	if r.silentStdin {
		cmd.Stdin = idlePipe(t, false)
	}
	if r.blockedStdout {
		cmd.Stdout = idlePipe(t, true)
	}
	start := time.Now()
	startedAt := startMeasured(t, cmd)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var err error
	var cpuBefore time.Duration // spent before the signal: the row's bound is on what follows it
	if r.sig != nil {
		err = sendWhenReady(t, cmd.Process, r.sig, exited)
		if err == nil {
			start = time.Now()
			cpuBefore = processCPU(cmd.Process.Pid)
			err = <-exited
		}
	} else {
		select {
		case err = <-exited:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			err = <-exited
			t.Errorf("%v still running after a minute", r.args)
		}
	}
	res := processResult{code: cmd.ProcessState.ExitCode(), took: time.Since(start), rssStart: startedAt, stdout: stdout.String(), stderr: stderr.String(), load: loadAverage()}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%v: %v", r.args, err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.rssMB = float64(ru.Maxrss) / 1024 // KiB on Linux
		res.cpu = time.Duration(syscall.TimevalToNsec(ru.Utime)+syscall.TimevalToNsec(ru.Stime)) - cpuBefore
	}
	res.leftover = processesWith(marker)
	if r.dir != "" {
		entries, _ := os.ReadDir(r.dir)
		for _, e := range entries {
			res.files = append(res.files, e.Name())
		}
	}
	for _, l := range res.leftover { // never leave them to the next test
		if pid, err := strconv.Atoi(strings.Fields(l)[0]); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return res
}

// processCPU is the user and system time of a live process and of the children it has
// reaped (/proc/PID/stat's utime, stime, cutime and cstime, in USER_HZ ticks: 100 a second on
// Linux), 0 when it cannot be read: the process already exited (its whole time is then after
// the signal, which only makes the bound stricter).
func processCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')') // the command name may hold spaces
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3, the state
	if len(f) < 15 {
		return 0
	}
	var ticks int64
	for _, s := range f[11:15] { // fields 14-17
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// idlePipe is one end of a pipe whose other end the test holds and never uses until it ends:
// the write end (a stdin nobody writes to) or the read end's writer (a stdout nobody reads).
func idlePipe(t *testing.T, writeEnd bool) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	if writeEnd {
		return w
	}
	return r
}

// after is a ready function: d has passed since it was first asked (the process started).
func after(d time.Duration) func() bool {
	var at time.Time
	return func() bool {
		if at.IsZero() {
			at = time.Now().Add(d)
		}
		return time.Now().After(at)
	}
}

// sendWhenReady waits (at most 30s) for the signal's moment and sends it; an early exit is
// an error.
func sendWhenReady(t *testing.T, p *os.Process, s *signalAt, exited chan error) error {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	ready := s.ready
	if b := s.blockedIn; b != nil {
		ready = func() bool { return (s.ready == nil || s.ready()) && b.in(t, p.Pid) }
	}
	for ready != nil && !ready() {
		select {
		case err := <-exited:
			exited <- err
			return fmt.Errorf("exited before the moment to send %s", s.sig)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the moment to send %s never came", s.sig)
		}
	}
	return p.Signal(s.sig)
}

// processesWith lists the live processes (zombies excluded) whose environment holds marker.
func processesWith(marker string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(env, []byte(marker+"\x00")) {
			continue
		}
		if !process.Alive(pid) {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		out = append(out, fmt.Sprintf("%d %s", pid, strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))))
	}
	return out
}

// fileExists is a ready function: the file has been created (a plugin's "I started" mark).
func fileExists(path string) func() bool {
	return func() bool { _, err := os.Stat(path); return err == nil }
}

// pluginScript writes an executable shell script into dir and returns its path.
func pluginScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// execCredential is what a plugin prints on stdout to hand client-go a token.
func execCredential(token string) string {
	return `{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"` + token + `"}}`
}

// pluginKubeconfig writes a kubeconfig for server (with CA data caPEM, or none) whose user runs
// plugin with the given environment, in interactiveMode mode.
func pluginKubeconfig(t *testing.T, dir, server string, caPEM []byte, plugin, mode string, env map[string]string) string {
	t.Helper()
	ca := ""
	if caPEM != nil {
		ca = ", certificate-authority-data: " + base64.StdEncoding.EncodeToString(caPEM)
	}
	envs := ""
	for k, v := range env {
		envs += fmt.Sprintf("{name: %s, value: %q},", k, v)
	}
	kc := filepath.Join(dir, "kubeconfig")
	content := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- cluster: {server: %q%s}
  name: c
users:
- name: u
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: %q, interactiveMode: %s, env: [%s]}
contexts:
- context: {cluster: c, user: u}
  name: ctx
current-context: ctx
`, server, ca, plugin, mode, strings.TrimSuffix(envs, ","))
	if err := os.WriteFile(kc, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return kc
}

// startMu serializes the starts of measured processes with the reset of the test process's
// peak RSS before each.
var startMu sync.Mutex

// startMeasured starts cmd and returns the test process's own peak RSS in MB at the start.
// os/exec starts a child in the test process's memory (vfork), and exec records that memory's
// peak as the child's, so wait4's ru_maxrss of the child is at least the test process's peak
// RSS when it started: a test that grew to 200 MB before would see every child at 200 MB. The
// peak is reset to the current RSS first (/proc/self/clear_refs), and read after the start:
// a child's ru_maxrss above it is the child's own.
func startMeasured(t testing.TB, cmd *exec.Cmd) float64 {
	t.Helper()
	startMu.Lock()
	defer startMu.Unlock()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}
