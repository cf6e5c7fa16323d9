package harness

import (
	"context"
	"fmt"
	"syscall"
	"time"
)

// What tests do to a running control plane: kill, stop, upgrade, restart, reconfigure, signal.

// Server returns the named server, or nil.
func (cp *ControlPlane) Server(name string) *Server { return cp.byName[name] }

// Servers returns every server in spec order.
func (cp *ControlPlane) Servers() []*Server { return append([]*Server(nil), cp.servers...) }

func (cp *ControlPlane) get(name string) (*Server, error) {
	s := cp.byName[name]
	if s == nil {
		return nil, fmt.Errorf("no server named %q", name)
	}
	return s, nil
}

func (s *Server) currentProc() *proc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc
}

// Kill sends SIGKILL to the named server and waits for it to exit. Its identity lease
// stays behind (it cannot clean up).
func (cp *ControlPlane) Kill(name string) error {
	s, err := cp.get(name)
	if err != nil {
		return err
	}
	p := s.currentProc()
	if p == nil {
		return nil
	}
	cp.logf("harness: SIGKILL %s (pid %d)", name, p.pid)
	return p.kill()
}

// Stop sends SIGTERM to the named server and waits for it to exit (a graceful stop:
// 1.35+ servers delete their identity lease on the way out).
func (cp *ControlPlane) Stop(name string) error {
	s, err := cp.get(name)
	if err != nil {
		return err
	}
	p := s.currentProc()
	if p == nil {
		return nil
	}
	logStart := fileSize(p.logPath)
	t0 := time.Now()
	err = p.term(90 * time.Second)
	took := time.Since(t0)
	cp.logf("harness: SIGTERM %s (pid %d): exited after %s", name, p.pid, took.Round(time.Millisecond))
	if took > slowStop {
		// A graceful stop takes a second or two; a slow one waited for something in flight
		// (non-long-running requests up to --request-timeout, open streams up to the HTTP
		// server's shutdown timeout). The server's own account of its stop names which.
		cp.logf("harness: %s's log from its SIGTERM on (%s):\n%s", name, p.logPath, shutdownLines(p.logPath, logStart, 200))
	}
	return err
}

// Upgrade stops a server gracefully (SIGTERM) and starts it again, same hostname and flags,
// with the kube-apiserver binary of another version: one step of a rolling upgrade.
func (cp *ControlPlane) Upgrade(ctx context.Context, name, version string) error {
	s, err := cp.get(name)
	if err != nil {
		return err
	}
	b, err := KubeAPIServer(version)
	if err != nil {
		return err
	}
	if s.Running() {
		if err := cp.Stop(name); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.Version, s.Binary = version, b.Path
	s.mu.Unlock()
	cp.logf("harness: upgrading %s to %s", name, version)
	if err := s.start(); err != nil {
		return err
	}
	return s.waitReady(ctx, 3*time.Minute)
}

// Restart stops the named server gracefully if it is running, starts it again with
// the same spec, port, certificates and hostname, and waits for /readyz. It does not
// wait for peers; call WaitPeers for that.
func (cp *ControlPlane) Restart(ctx context.Context, name string) error {
	return cp.Reconfigure(ctx, name, func(*ServerSpec) {})
}

// Reconfigure stops the named server gracefully if it is running, changes its spec with
// change (its name and version stay), starts it again and waits for /readyz.
func (cp *ControlPlane) Reconfigure(ctx context.Context, name string, change func(*ServerSpec)) error {
	s, err := cp.get(name)
	if err != nil {
		return err
	}
	if s.Running() {
		if err := cp.Stop(name); err != nil {
			return err
		}
	}
	s.mu.Lock()
	spec := s.ServerSpec
	change(&spec)
	spec.Name, spec.Version = s.Name, s.Version
	s.ServerSpec = spec
	s.mu.Unlock()
	if err := s.start(); err != nil {
		return err
	}
	return s.waitReady(ctx, 3*time.Minute)
}

// Signal sends sig to the named server's PID. It is for tests that need an unusual signal (e.g. SIGSTOP to freeze a peer).
func (cp *ControlPlane) Signal(name string, sig syscall.Signal) error {
	s, err := cp.get(name)
	if err != nil {
		return err
	}
	p := s.currentProc()
	if p == nil {
		return fmt.Errorf("%s was never started", name)
	}
	return p.signal(sig)
}
