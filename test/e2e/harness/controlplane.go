package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// ControlPlane is one etcd plus N kube-apiservers on loopback, with a throw-away PKI.
type ControlPlane struct {
	Dir        string // temp dir: pki/, logs/, etcd data, kubeconfigs, cert dirs
	PKI        *PKI
	EtcdURL    string
	Kubeconfig string // admin kubeconfig for the first server

	logf    func(format string, args ...any)
	etcd    *proc
	servers []*Server
	byName  map[string]*Server
	// backends are aggregated API servers started with StartMetricsServer.
	backends []*Backend
	closed   bool
	keep     bool
	closeMu  sync.Mutex
}

// Config configures NewControlPlane.
type Config struct {
	Servers []ServerSpec
	// Logf receives progress and timing lines (t.Logf in tests). May be nil.
	Logf func(format string, args ...any)
	// Keep leaves Dir in place after Close (also set by MVPCTL_E2E_KEEP=1).
	Keep bool
}

// SkipIfUnsupported skips t unless the harness can run here: it needs root (for
// `unshare --uts` and hostname) and the unshare and hostname commands.
func SkipIfUnsupported(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("e2e harness needs root: each kube-apiserver runs under `unshare --uts` with its own hostname (CI runs as root)")
	}
	for _, c := range []string{"unshare", "hostname", "sh"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("e2e harness needs %q on PATH (util-linux / hostname): %v", c, err)
		}
	}
}

// Start builds (or finds cached) binaries, starts etcd and every server, waits until
// each is ready and, for servers with MVP installed, until they see their peers
// (WaitPeers). It fails t on error, printing the tails of the logs, and registers
// Close with t.Cleanup.
func Start(t testing.TB, specs ...ServerSpec) *ControlPlane {
	t.Helper()
	SkipIfUnsupported(t)
	start := time.Now()
	cp, err := NewControlPlane(Config{Servers: specs, Logf: t.Logf})
	if cp != nil {
		t.Cleanup(func() {
			if t.Failed() {
				cp.DumpLogs(t.Logf, 40)
			}
			cp.Close()
		})
	}
	if err != nil {
		t.Fatalf("starting control plane: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := cp.WaitPeers(ctx); err != nil {
		t.Fatalf("waiting for peers: %v", err)
	}
	t.Logf("harness: control plane of %d server(s) ready and peered in %s", len(specs), time.Since(start).Round(time.Millisecond))
	return cp
}

// NewControlPlane starts a control plane without waiting for peers. On error the
// returned ControlPlane (if not nil) holds what was started; Close it.
func NewControlPlane(cfg Config) (*ControlPlane, error) {
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if err := checkSpecs(cfg.Servers); err != nil {
		return nil, err
	}
	etcdBin, bins, err := binaries(cfg.Servers, logf)
	if err != nil {
		return nil, err
	}
	cp, err := newWorkDir(cfg.Keep || os.Getenv(EnvKeep) == "1", logf)
	if err != nil {
		return cp, err
	}
	if err := cp.startEtcd(etcdBin); err != nil {
		return cp, err
	}
	if err := cp.addServers(cfg.Servers, bins); err != nil {
		return cp, err
	}
	// Start all, then wait for each to be ready.
	for _, s := range cp.servers {
		if err := s.start(); err != nil {
			return cp, err
		}
	}
	for _, s := range cp.servers {
		if err := s.waitReady(context.Background(), 3*time.Minute); err != nil {
			return cp, err
		}
	}
	return cp, nil
}

// checkSpecs refuses no servers, a name that is empty, duplicated or not a plain hostname,
// and a version without a minor.
func checkSpecs(specs []ServerSpec) error {
	if len(specs) == 0 {
		return errors.New("no servers")
	}
	seen := map[string]bool{}
	for _, s := range specs {
		if s.Name == "" || strings.ContainsAny(s.Name, " /'\"$") || seen[s.Name] {
			return fmt.Errorf("server name %q is empty, duplicated or not a plain hostname", s.Name)
		}
		seen[s.Name] = true
		if s.Minor() == 0 {
			return fmt.Errorf("server %s: bad version %q", s.Name, s.Version)
		}
	}
	return nil
}

// binaries builds (or finds cached) etcd and each version's kube-apiserver, one after the
// other: a cold build takes minutes and both cores. bins maps a version to its binary.
func binaries(specs []ServerSpec, logf func(string, ...any)) (etcdBin Binary, bins map[string]string, err error) {
	if etcdBin, err = Etcd(); err != nil {
		return etcdBin, nil, err
	}
	logf("harness: etcd binary %s (cached=%v, %s)", etcdBin.Path, etcdBin.Cached, etcdBin.Took.Round(time.Millisecond))
	bins = map[string]string{}
	for _, s := range specs {
		if _, ok := bins[s.Version]; ok {
			continue
		}
		b, err := KubeAPIServer(s.Version)
		if err != nil {
			return etcdBin, nil, err
		}
		logf("harness: kube-apiserver %s binary %s (cached=%v, %s)", s.Version, b.Path, b.Cached, b.Took.Round(time.Millisecond))
		bins[s.Version] = b.Path
	}
	return etcdBin, bins, nil
}

// newWorkDir makes the control plane's directory (removed at Close unless keep) with its
// logs, kubeconfigs and PKI.
func newWorkDir(keep bool, logf func(string, ...any)) (*ControlPlane, error) {
	dir, err := os.MkdirTemp("", "mvpctl-e2e-")
	if err != nil {
		return nil, err
	}
	cp := &ControlPlane{Dir: dir, logf: logf, byName: map[string]*Server{}, keep: keep}
	if keep {
		logf("harness: keeping %s after Close", dir)
	} else {
		liveMu.Lock()
		liveDirs[dir] = struct{}{}
		liveMu.Unlock()
	}
	for _, d := range []string{"logs", "kubeconfig"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return cp, err
		}
	}
	cp.PKI, err = NewPKI(filepath.Join(dir, "pki"))
	return cp, err
}

// startEtcd starts the one embedded etcd every server uses and waits until it is healthy.
func (cp *ControlPlane) startEtcd(etcdBin Binary) error {
	t0 := time.Now()
	cport, err := freePort()
	if err != nil {
		return err
	}
	pport, err := freePort()
	if err != nil {
		return err
	}
	cp.EtcdURL = fmt.Sprintf("http://127.0.0.1:%d", cport)
	etcdLog := filepath.Join(cp.Dir, "logs", "etcd.log")
	cp.etcd, err = startProc("etcd", etcdLog, "", []string{etcdBin.Path,
		"-data-dir", filepath.Join(cp.Dir, "etcd"), "-listen-client", cp.EtcdURL,
		"-listen-peer", fmt.Sprintf("http://127.0.0.1:%d", pport)})
	if err != nil {
		return err
	}
	if err := waitHTTP(context.Background(), http.DefaultClient, cp.EtcdURL+"/health", cp.etcd, 60*time.Second); err != nil {
		return fmt.Errorf("etcd not healthy: %w; log %s:\n%s", err, etcdLog, tailFile(etcdLog, 40))
	}
	cp.logf("harness: etcd ready on %s in %s (pid %d)", cp.EtcdURL, time.Since(t0).Round(time.Millisecond), cp.etcd.pid)
	return nil
}

// addServers prepares each server of specs, not yet started: its port, lease name, client,
// kubeconfig and certificate directory; and the admin kubeconfig, to the first server.
func (cp *ControlPlane) addServers(specs []ServerSpec, bins map[string]string) error {
	for _, spec := range specs {
		port, err := freePort()
		if err != nil {
			return err
		}
		s := &Server{
			ServerSpec: spec, Port: port, URL: fmt.Sprintf("https://127.0.0.1:%d", port),
			LeaseID: mvp.ServerID(spec.Name), LogPath: filepath.Join(cp.Dir, "logs", spec.Name+".log"),
			Binary: bins[spec.Version], cp: cp,
		}
		if s.HTTPClient, err = cp.adminHTTPClient(); err != nil {
			return err
		}
		if s.Kubeconfig, err = cp.writeKubeconfig(s, filepath.Join(cp.Dir, "kubeconfig", spec.Name)); err != nil {
			return err
		}
		if err := os.MkdirAll(s.certDir(), 0o700); err != nil {
			return err
		}
		cp.servers = append(cp.servers, s)
		cp.byName[s.Name] = s
	}
	cp.Kubeconfig = filepath.Join(cp.Dir, "kubeconfig", "admin")
	_, err := cp.writeKubeconfig(cp.servers[0], cp.Kubeconfig)
	return err
}

func (s *Server) start() error {
	if _, _, err := s.cp.PKI.ServingCert(s.Name); err != nil {
		return fmt.Errorf("%s: serving cert: %w", s.Name, err)
	}
	pidFile := filepath.Join(s.cp.Dir, "logs", s.Name+".pid")
	// unshare (no --fork) execs sh in place; sh sets the hostname of the new UTS
	// namespace, writes its own PID and execs kube-apiserver in place: one PID throughout.
	argv := append([]string{"unshare", "--uts", "sh", "-c",
		`hostname "$1" && echo $$ > "$2" && shift 2 && exec "$@"`, "sh", s.Name, pidFile, s.Binary}, s.Args()...)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil && !s.proc.exited() {
		return fmt.Errorf("%s is already running (pid %d)", s.Name, s.proc.pid)
	}
	p, err := startProc(s.Name, s.LogPath, pidFile, argv)
	if err != nil {
		return err
	}
	s.proc = p
	s.started = time.Now()
	return nil
}

func (s *Server) waitReady(ctx context.Context, timeout time.Duration) error {
	s.mu.Lock()
	p, started := s.proc, s.started
	s.mu.Unlock()
	if err := waitHTTP(ctx, s.HTTPClient, s.URL+"/readyz", p, timeout); err != nil {
		return fmt.Errorf("kube-apiserver %s (%s, pid %d) not ready: %w; log %s:\n%s", s.Name, s.Version, p.pid, err, s.LogPath, s.LogTail(40))
	}
	s.cp.logf("harness: kube-apiserver %s (%s) ready on %s in %s (pid %d, lease %s)", s.Name, s.Version, s.URL, time.Since(started).Round(time.Millisecond), p.pid, s.LeaseID)
	return nil
}

// WaitReady waits until the named server's /readyz answers 200.
func (cp *ControlPlane) WaitReady(ctx context.Context, name string) error {
	s, err := cp.get(name)
	if err != nil {
		return err
	}
	return s.waitReady(ctx, 3*time.Minute)
}

// waitHTTP polls url until it answers 200, p exits, or timeout passes.
func waitHTTP(ctx context.Context, c *http.Client, url string, p *proc, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last string
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := c.Do(req)
		if err == nil {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(b)))
		} else {
			last = err.Error()
		}
		if p != nil && p.exited() {
			return fmt.Errorf("process exited (%v)", p.waitErr)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: no 200 within %s; last: %s", url, timeout, last)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Close kills every process the control plane started (by PID), waits for them, and
// removes Dir unless asked to keep it. It is safe to call more than once.
func (cp *ControlPlane) Close() {
	cp.closeMu.Lock()
	defer cp.closeMu.Unlock()
	if cp.closed {
		return
	}
	cp.closed = true
	for _, b := range cp.backends {
		if err := b.Kill(); err != nil {
			cp.logf("harness: close: %v", err)
		}
	}
	for _, s := range cp.servers {
		if p := s.currentProc(); p != nil {
			if err := p.kill(); err != nil {
				cp.logf("harness: close: %v", err)
			}
		}
	}
	if cp.etcd != nil {
		if err := cp.etcd.kill(); err != nil {
			cp.logf("harness: close: %v", err)
		}
	}
	if cp.keep {
		cp.logf("harness: kept %s", cp.Dir)
		return
	}
	_ = os.RemoveAll(cp.Dir)
	liveMu.Lock()
	delete(liveDirs, cp.Dir)
	liveMu.Unlock()
}

// DumpLogs prints the last n lines of every log (etcd and servers) through logf.
func (cp *ControlPlane) DumpLogs(logf func(string, ...any), n int) {
	logf("harness: --- last %d lines of %s ---\n%s", n, "etcd.log", tailFile(filepath.Join(cp.Dir, "logs", "etcd.log"), n))
	for _, s := range cp.servers {
		logf("harness: --- last %d lines of %s (%s) ---\n%s", n, s.LogPath, s.Version, s.LogTail(n))
	}
	for _, b := range cp.backends {
		logf("harness: --- last %d lines of %s ---\n%s", n, b.LogPath, tailFile(b.LogPath, n))
	}
}
