package harness

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ServerSpec describes one kube-apiserver of a control plane.
type ServerSpec struct {
	// Name is the server's name in the harness and its hostname (inside its own UTS
	// namespace), so it determines the server's identity lease / server ID.
	Name string
	// Version is a pinned kube-apiserver version, e.g. V1_36.
	Version string
	// ExtraFlags are appended after the harness's flags (later flags win).
	ExtraFlags []string
	// GateOff turns the Mixed Version Proxy off: no --peer-* flags, and for versions
	// where the gate is on by default (1.36+),
	// --feature-gates=UnknownVersionInteroperabilityProxy=false.
	GateOff bool
	// NoPeerCA keeps the gate on (and --peer-advertise-*) but leaves out --peer-ca-file,
	// so the proxy filter and peer-aggregated discovery are not installed.
	NoPeerCA bool
	// WrongPeerCA sets --peer-ca-file to the front-proxy CA, which signed no serving
	// certificate (an easy mistake): the filter is installed, but the server's peer-discovery
	// fetches fail TLS verification, so it learns no peer.
	WrongPeerCA bool
	// UnreachableAdvertise publishes 127.0.0.2:<port> as the server's peer address, where
	// nothing listens (it binds 127.0.0.1): peers cannot fetch its discovery, so none learns
	// it. Observed on v1.36.3: --peer-advertise-ip/--peer-advertise-port do not change the
	// published address (the identity lease annotation and the endpoint lease carry
	// --advertise-address and the secure port), so --advertise-address is what is changed.
	UnreachableAdvertise bool
	// DefaultProxyConfig starts the binary with its own defaults for the Mixed Version Proxy,
	// as a plain installer does: no --feature-gates and no --peer-* flags (so no filter: there
	// is no --peer-ca-file). Used to record what a version does by default.
	DefaultProxyConfig bool
}

// Minor returns the minor version number of s.Version (36 for v1.36.3).
func (s ServerSpec) Minor() int {
	m := versionRE.FindStringSubmatch(s.Version)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// GateOn reports whether UnknownVersionInteroperabilityProxy is enabled on the server.
func (s ServerSpec) GateOn() bool {
	if s.DefaultProxyConfig {
		return s.Minor() >= 36 // beta and on by default from 1.36
	}
	return !s.GateOff
}

// MVP reports whether the proxy filter (and, 1.35+, peer-aggregated discovery) is
// installed: gate on and --peer-ca-file given.
func (s ServerSpec) MVP() bool { return !s.GateOff && !s.NoPeerCA && !s.DefaultProxyConfig }

// Server is one running (or stopped) kube-apiserver of a ControlPlane.
type Server struct {
	ServerSpec
	Port       int    // secure port on 127.0.0.1 (also the peer-advertise port)
	URL        string // https://127.0.0.1:<Port>
	LeaseID    string // identity lease name = server ID, computed from Name
	Kubeconfig string // admin kubeconfig that talks to this server only
	LogPath    string
	Binary     string

	// HTTPClient talks to this server with the admin (system:masters) client cert and
	// verifies it against the server CA. It does not follow redirects.
	HTTPClient *http.Client

	cp      *ControlPlane
	mu      sync.Mutex
	proc    *proc
	started time.Time
}

// PID is the PID of the kube-apiserver process (the one `exec` kept), or 0 if it
// was never started.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return 0
	}
	return s.proc.pid
}

// Running reports whether the server process is alive.
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc != nil && !s.proc.exited()
}

// RestConfig returns a client-go config for this server with the admin cert.
func (s *Server) RestConfig() *rest.Config {
	p := s.cp.PKI
	return &rest.Config{
		Host:    s.URL,
		Timeout: 30 * time.Second,
		TLSClientConfig: rest.TLSClientConfig{
			CAFile: p.ServerCA, CertFile: p.AdminCert, KeyFile: p.AdminKey,
		},
	}
}

// LogTail returns the last n lines of the server's log.
func (s *Server) LogTail(n int) string { return tailFile(s.LogPath, n) }

// Response is a raw HTTP observation.
type Response struct {
	StatusCode  int
	ContentType string
	Header      http.Header
	Body        []byte
}

func (r *Response) String() string {
	return fmt.Sprintf("%d %s %s", r.StatusCode, r.ContentType, strings.TrimSpace(string(r.Body)))
}

// Do sends one request to this server with the admin cert and reads the whole body.
func (s *Server) Do(ctx context.Context, method, path string, header http.Header, body io.Reader) (*Response, error) {
	return s.DoWith(ctx, s.HTTPClient, method, path, header, body)
}

// DoWith is Do with another client (e.g. one from ControlPlane.HTTPClientFor).
func (s *Server) DoWith(ctx context.Context, c *http.Client, method, path string, header http.Header, body io.Reader) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.URL+path, body)
	if err != nil {
		return nil, err
	}
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s%s: reading body: %w", method, s.Name, path, err)
	}
	return &Response{StatusCode: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Header: resp.Header, Body: b}, nil
}

// Get is Do with GET and optional header pairs ("Name", "value", ...).
func (s *Server) Get(ctx context.Context, path string, headerKV ...string) (*Response, error) {
	h := http.Header{}
	for i := 0; i+1 < len(headerKV); i += 2 {
		h.Add(headerKV[i], headerKV[i+1])
	}
	return s.Do(ctx, http.MethodGet, path, h, nil)
}

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
	if len(cfg.Servers) == 0 {
		return nil, errors.New("no servers")
	}
	seen := map[string]bool{}
	for _, s := range cfg.Servers {
		if s.Name == "" || strings.ContainsAny(s.Name, " /'\"$") || seen[s.Name] {
			return nil, fmt.Errorf("server name %q is empty, duplicated or not a plain hostname", s.Name)
		}
		seen[s.Name] = true
		if s.Minor() == 0 {
			return nil, fmt.Errorf("server %s: bad version %q", s.Name, s.Version)
		}
	}

	// Binaries first (sequential: a cold build takes minutes and both cores).
	etcdBin, err := Etcd()
	if err != nil {
		return nil, err
	}
	logf("harness: etcd binary %s (cached=%v, %s)", etcdBin.Path, etcdBin.Cached, etcdBin.Took.Round(time.Millisecond))
	bins := map[string]string{}
	for _, s := range cfg.Servers {
		if _, ok := bins[s.Version]; ok {
			continue
		}
		b, err := KubeAPIServer(s.Version)
		if err != nil {
			return nil, err
		}
		logf("harness: kube-apiserver %s binary %s (cached=%v, %s)", s.Version, b.Path, b.Cached, b.Took.Round(time.Millisecond))
		bins[s.Version] = b.Path
	}

	dir, err := os.MkdirTemp("", "mvpctl-e2e-")
	if err != nil {
		return nil, err
	}
	keep := cfg.Keep || os.Getenv(EnvKeep) == "1"
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
	if cp.PKI, err = NewPKI(filepath.Join(dir, "pki")); err != nil {
		return cp, err
	}

	// etcd
	t0 := time.Now()
	cport, err := freePort()
	if err != nil {
		return cp, err
	}
	pport, err := freePort()
	if err != nil {
		return cp, err
	}
	cp.EtcdURL = fmt.Sprintf("http://127.0.0.1:%d", cport)
	etcdLog := filepath.Join(dir, "logs", "etcd.log")
	cp.etcd, err = startProc("etcd", etcdLog, "", []string{etcdBin.Path,
		"-data-dir", filepath.Join(dir, "etcd"), "-listen-client", cp.EtcdURL,
		"-listen-peer", fmt.Sprintf("http://127.0.0.1:%d", pport)})
	if err != nil {
		return cp, err
	}
	if err := waitHTTP(context.Background(), http.DefaultClient, cp.EtcdURL+"/health", cp.etcd, 60*time.Second); err != nil {
		return cp, fmt.Errorf("etcd not healthy: %w; log %s:\n%s", err, etcdLog, tailFile(etcdLog, 40))
	}
	logf("harness: etcd ready on %s in %s (pid %d)", cp.EtcdURL, time.Since(t0).Round(time.Millisecond), cp.etcd.pid)

	// Servers: prepare all, start all, then wait for each to be ready.
	for _, spec := range cfg.Servers {
		port, err := freePort()
		if err != nil {
			return cp, err
		}
		s := &Server{
			ServerSpec: spec, Port: port, URL: fmt.Sprintf("https://127.0.0.1:%d", port),
			LeaseID: snapshot.ServerID(spec.Name), LogPath: filepath.Join(dir, "logs", spec.Name+".log"),
			Binary: bins[spec.Version], cp: cp,
		}
		if s.HTTPClient, err = cp.adminHTTPClient(); err != nil {
			return cp, err
		}
		if s.Kubeconfig, err = cp.writeKubeconfig(s, filepath.Join(dir, "kubeconfig", spec.Name)); err != nil {
			return cp, err
		}
		if err := os.MkdirAll(s.certDir(), 0o700); err != nil {
			return cp, err
		}
		cp.servers = append(cp.servers, s)
		cp.byName[s.Name] = s
	}
	cp.Kubeconfig = filepath.Join(dir, "kubeconfig", "admin")
	if _, err := cp.writeKubeconfig(cp.servers[0], cp.Kubeconfig); err != nil {
		return cp, err
	}
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

func (s *Server) certDir() string { return filepath.Join(s.cp.Dir, "cert-dir", s.Name) }

// Args returns the kube-apiserver command line (without the binary) for s.
func (s *Server) Args() []string {
	cp, p := s.cp, s.cp.PKI
	cert, key := filepath.Join(p.Dir, "serving-"+s.Name+".crt"), filepath.Join(p.Dir, "serving-"+s.Name+".key")
	a := []string{
		"--etcd-servers=" + cp.EtcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(s.Port),
		"--cert-dir=" + s.certDir(),
		"--tls-cert-file=" + cert,
		"--tls-private-key-file=" + key,
		"--client-ca-file=" + p.ClientCA,
		"--service-account-key-file=" + p.ServiceAccountPub,
		"--service-account-signing-key-file=" + p.ServiceKey,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-cluster-ip-range=10.96.0.0/16",
		"--endpoint-reconciler-type=none",
		"--authorization-mode=RBAC",
		"--proxy-client-cert-file=" + p.ProxyClientCert,
		"--proxy-client-key-file=" + p.ProxyKey,
		"--requestheader-client-ca-file=" + p.FrontProxyCA,
		"--requestheader-allowed-names=",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--profiling=false",
		"--v=2",
	}
	minor := s.Minor()
	switch {
	case s.DefaultProxyConfig:
	case s.GateOff:
		if minor >= 36 { // beta, on by default from 1.36
			a = append(a, "--feature-gates=UnknownVersionInteroperabilityProxy=false")
		}
	default:
		if minor < 36 {
			a = append(a, "--feature-gates=UnknownVersionInteroperabilityProxy=true")
		}
		a = append(a, "--peer-advertise-ip=127.0.0.1", "--peer-advertise-port="+strconv.Itoa(s.Port))
		if s.UnreachableAdvertise {
			a = append(a, "--advertise-address=127.0.0.2") // the later flag wins
		}
		switch {
		case s.WrongPeerCA:
			a = append(a, "--peer-ca-file="+p.FrontProxyCA)
		case !s.NoPeerCA:
			a = append(a, "--peer-ca-file="+p.ServerCA)
		}
	}
	return append(a, s.ExtraFlags...)
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
	t0 := time.Now()
	err = p.term(90 * time.Second)
	cp.logf("harness: SIGTERM %s (pid %d): exited after %s", name, p.pid, time.Since(t0).Round(time.Millisecond))
	return err
}

// Restart stops the named server gracefully if it is running, starts it again with
// the same spec, port, certificates and hostname, and waits for /readyz. It does not
// wait for peers; call WaitPeers for that.
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

func (cp *ControlPlane) adminHTTPClient() (*http.Client, error) {
	p := cp.PKI
	caPEM, err := os.ReadFile(p.ServerCA)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	cert, err := tls.LoadX509KeyPair(p.AdminCert, p.AdminKey)
	if err != nil {
		return nil, err
	}
	tr := &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     30 * time.Second,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}, nil
}

func (cp *ControlPlane) writeKubeconfig(s *Server, path string) (string, error) {
	p := cp.PKI
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[s.Name] = &clientcmdapi.Cluster{Server: s.URL, CertificateAuthority: p.ServerCA}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificate: p.AdminCert, ClientKey: p.AdminKey}
	cfg.Contexts[s.Name] = &clientcmdapi.Context{Cluster: s.Name, AuthInfo: "admin"}
	cfg.CurrentContext = s.Name
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return "", err
	}
	return path, nil
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

// HTTPClientFor returns an HTTP client for any server of the control plane that
// authenticates with a fresh client certificate for user/groups (e.g. an unprivileged
// user to observe 403s).
func (cp *ControlPlane) HTTPClientFor(user string, groups ...string) (*http.Client, error) {
	certPath, keyPath, err := cp.PKI.ClientCert(user, groups...)
	if err != nil {
		return nil, err
	}
	c, err := cp.adminHTTPClient()
	if err != nil {
		return nil, err
	}
	cert, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		return nil, err
	}
	c.Transport.(*http.Transport).TLSClientConfig.Certificates = []tls.Certificate{cert}
	return c, nil
}
