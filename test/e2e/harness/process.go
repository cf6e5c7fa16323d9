package harness

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is one child process started by the harness. The harness only ever signals
// the PID it recorded for a proc (never a process name).
type proc struct {
	name    string
	cmd     *exec.Cmd
	pid     int
	logPath string
	done    chan struct{} // closed when the process has exited and been reaped
	waitErr error
}

var (
	liveMu   sync.Mutex
	liveProc = map[*proc]struct{}{}
	liveDirs = map[string]struct{}{} // temp dirs to remove if the test binary is interrupted
	sigOnce  sync.Once
)

// installSignalCleanup makes SIGINT/SIGTERM to the test binary kill every process the
// harness started before the binary exits. (Children also get SIGKILL through
// Pdeathsig if the test binary dies some other way, e.g. a `go test -timeout` panic.)
func installSignalCleanup() {
	sigOnce.Do(func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
		go func() {
			s := <-ch
			killAllLive()
			liveMu.Lock()
			for d := range liveDirs {
				_ = os.RemoveAll(d)
			}
			liveMu.Unlock()
			fmt.Fprintf(os.Stderr, "mvpctl e2e harness: %v: killed every process it started\n", s)
			os.Exit(2)
		}()
	})
}

func killAllLive() {
	liveMu.Lock()
	defer liveMu.Unlock()
	for p := range liveProc {
		_ = syscall.Kill(p.pid, syscall.SIGKILL)
	}
}

// startProc starts argv with stdout/stderr appended to logPath. If pidFile is not
// empty the process is expected to write the PID it finally execs as into it (the
// unshare/sh wrapper does), and that PID is the one recorded.
func startProc(name, logPath, pidFile string, argv []string) (*proc, error) {
	installSignalCleanup()
	logF, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logF, "=== harness %s: starting %s: %s\n", time.Now().Format(time.RFC3339Nano), name, strings.Join(argv, " "))
	if pidFile != "" {
		_ = os.Remove(pidFile)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = logF, logF
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:   true,            // a terminal's ^C goes to the test binary only, which cleans up
		Pdeathsig: syscall.SIGKILL, // survives exec (unshare and sh are not set-uid)
	}
	if err := cmd.Start(); err != nil {
		logF.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, pid: cmd.Process.Pid, logPath: logPath, done: make(chan struct{})}
	liveMu.Lock()
	liveProc[p] = struct{}{}
	liveMu.Unlock()
	go func() {
		p.waitErr = cmd.Wait()
		logF.Close()
		liveMu.Lock()
		delete(liveProc, p)
		liveMu.Unlock()
		close(p.done)
	}()

	if pidFile != "" {
		deadline := time.Now().Add(10 * time.Second)
		for {
			b, err := os.ReadFile(pidFile)
			if err == nil && strings.HasSuffix(string(b), "\n") {
				pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
				if err != nil {
					p.kill()
					return nil, fmt.Errorf("%s: bad pid file %s: %q", name, pidFile, b)
				}
				if pid != p.pid {
					// unshare without --fork execs in place, so this should not happen;
					// the exec'd PID is the one that matters.
					fmt.Fprintf(os.Stderr, "harness: %s: pid file says %d, started %d; using %d\n", name, pid, p.pid, pid)
					p.pid = pid
				}
				break
			}
			if p.exited() {
				return nil, fmt.Errorf("%s exited during start-up (%v); log %s:\n%s", name, p.waitErr, logPath, tailFile(logPath, 40))
			}
			if time.Now().After(deadline) {
				p.kill()
				return nil, fmt.Errorf("%s: no pid in %s after 10s; log %s:\n%s", name, pidFile, logPath, tailFile(logPath, 40))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return p, nil
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *proc) signal(sig syscall.Signal) error {
	if p.exited() {
		return nil
	}
	if err := syscall.Kill(p.pid, sig); err != nil && err != syscall.ESRCH {
		return fmt.Errorf("%s: kill -%d %d: %w", p.name, sig, p.pid, err)
	}
	return nil
}

// wait waits up to d for the process to exit.
func (p *proc) wait(d time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(d):
		return false
	}
}

// kill sends SIGKILL and waits for the exit.
func (p *proc) kill() error {
	if err := p.signal(syscall.SIGKILL); err != nil {
		return err
	}
	if !p.wait(30 * time.Second) {
		return fmt.Errorf("%s (pid %d) still running 30s after SIGKILL", p.name, p.pid)
	}
	return nil
}

// term sends SIGTERM, waits up to grace for a clean exit, then SIGKILLs.
func (p *proc) term(grace time.Duration) error {
	if err := p.signal(syscall.SIGTERM); err != nil {
		return err
	}
	if p.wait(grace) {
		return nil
	}
	fmt.Fprintf(os.Stderr, "harness: %s (pid %d) did not exit %s after SIGTERM; sending SIGKILL\n", p.name, p.pid, grace)
	return p.kill()
}

var (
	portMu    sync.Mutex
	usedPorts = map[int]bool{}
)

// freePort returns a loopback TCP port that was free a moment ago and that this
// process has not handed out before.
func freePort() (int, error) {
	portMu.Lock()
	defer portMu.Unlock()
	for i := 0; i < 100; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !usedPorts[port] {
			usedPorts[port] = true
			return port, nil
		}
	}
	return 0, fmt.Errorf("no free loopback port found")
}

// tailFile returns the last n lines of a file (or a note saying why it cannot).
func tailFile(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	return tail(string(b), n)
}
