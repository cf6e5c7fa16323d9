package harness

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MetricsServerVersion is the pinned metrics-server, the real aggregated API server the
// harness runs behind an APIService (tools module test/e2e/tools/metrics-server).
const MetricsServerVersion = "v0.8.0"

func metricsServerRecipe() (recipe, error) {
	tools, err := ToolsDir()
	if err != nil {
		return recipe{}, err
	}
	modDir := filepath.Join(tools, "metrics-server")
	if _, err := os.Stat(filepath.Join(modDir, "go.sum")); err != nil {
		return recipe{}, fmt.Errorf("metrics-server: no tools module at %s: %w", modDir, err)
	}
	return recipe{what: "metrics-server " + MetricsServerVersion, modDir: modDir, bin: "metrics-server", key: MetricsServerVersion,
		args: []string{"build", "-ldflags", "-X k8s.io/client-go/pkg/version.gitVersion=" + MetricsServerVersion, "sigs.k8s.io/metrics-server/cmd/metrics-server"}}, nil
}

// MetricsServer returns the metrics-server binary, building it from its tools module if
// it is not in the cache.
func MetricsServer() (Binary, error) {
	r, err := metricsServerRecipe()
	if err != nil {
		return Binary{}, err
	}
	return ensureBinary(r)
}

// Backend is an aggregated API server (metrics-server) the control plane started on
// 127.0.0.1:Port. It talks to the control plane's first server with the admin kubeconfig
// (its own API reads, delegated authentication and authorization) and serves a
// self-signed certificate from its cert dir, so an APIService for it needs
// insecureSkipTLSVerify. Kill and Start keep the port, so the APIService and its Service
// stay valid across a crash and a restart.
type Backend struct {
	Name    string
	Port    int
	URL     string // https://127.0.0.1:<Port>
	LogPath string
	Binary  string

	cp     *ControlPlane
	args   []string
	client *http.Client // no client certificate, serving cert not verified: for /livez only
	mu     sync.Mutex
	proc   *proc
}

// StartMetricsServer builds (or finds) metrics-server, starts it on a free loopback port
// and waits until it answers /livez.
func (cp *ControlPlane) StartMetricsServer(ctx context.Context) (*Backend, error) {
	bin, err := MetricsServer()
	if err != nil {
		return nil, err
	}
	cp.logf("harness: metrics-server binary %s (cached=%v, %s)", bin.Path, bin.Cached, bin.Took.Round(time.Millisecond))
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	name := "metrics-server"
	certDir := filepath.Join(cp.Dir, "cert-dir", name)
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return nil, err
	}
	b := &Backend{
		Name: name, Port: port, URL: fmt.Sprintf("https://127.0.0.1:%d", port),
		LogPath: filepath.Join(cp.Dir, "logs", name+".log"), Binary: bin.Path, cp: cp,
		args: []string{
			"--secure-port=" + strconv.Itoa(port),
			"--bind-address=127.0.0.1",
			"--cert-dir=" + certDir,
			"--kubeconfig=" + cp.Kubeconfig,
			"--authentication-kubeconfig=" + cp.Kubeconfig,
			"--authorization-kubeconfig=" + cp.Kubeconfig,
			"--kubelet-insecure-tls",
			"--profiling=false",
			"--v=2",
		},
		client: &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}, //nolint:gosec // self-signed loopback test server
		}},
	}
	cp.closeMu.Lock()
	cp.backends = append(cp.backends, b)
	cp.closeMu.Unlock()
	return b, b.Start(ctx)
}

// Start starts the backend (again) on its port and waits up to a minute for /livez 200.
func (b *Backend) Start(ctx context.Context) error {
	b.mu.Lock()
	if b.proc != nil && !b.proc.exited() {
		b.mu.Unlock()
		return fmt.Errorf("%s is already running (pid %d)", b.Name, b.proc.pid)
	}
	t0 := time.Now()
	p, err := startProc(b.Name, b.LogPath, "", append([]string{b.Binary}, b.args...))
	if err != nil {
		b.mu.Unlock()
		return err
	}
	b.proc = p
	b.mu.Unlock()
	if err := waitHTTP(ctx, b.client, b.URL+"/livez", p, time.Minute); err != nil {
		return fmt.Errorf("%s (pid %d) not live: %w; log %s:\n%s", b.Name, p.pid, err, b.LogPath, tailFile(b.LogPath, 40))
	}
	b.cp.logf("harness: %s live on %s in %s (pid %d)", b.Name, b.URL, time.Since(t0).Round(time.Millisecond), p.pid)
	return nil
}

// Kill sends SIGKILL to the backend and waits for it to exit.
func (b *Backend) Kill() error {
	b.mu.Lock()
	p := b.proc
	b.mu.Unlock()
	if p == nil {
		return nil
	}
	b.cp.logf("harness: SIGKILL %s (pid %d)", b.Name, p.pid)
	return p.kill()
}

// Running reports whether the backend process is alive.
func (b *Backend) Running() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.proc != nil && !b.proc.exited()
}

// APIServiceTarget is where an APIService points: a Service in kube-system.
type APIServiceTarget struct {
	// Service is the Service's name in kube-system.
	Service string
	// Port is the APIService's spec.service.port and the Service's port.
	Port int
	// ExternalName, if set, makes the Service of type ExternalName with this host (e.g.
	// "localhost"): every apiserver's aggregator dials <ExternalName>:<Port> directly
	// (k8s.io/apiserver/pkg/util/proxy ResolveCluster), no kube-proxy needed. Empty: a
	// ClusterIP Service without selector and without EndpointSlices (no endpoints).
	ExternalName string
	// NoService leaves the Service out (the APIService points at a Service that does not exist).
	NoService bool
}

// RegisterAPIService creates the target's Service (unless NoService) and an APIService
// "<version>.<group>" for it with insecureSkipTLSVerify, through the first running server.
// It returns the APIService's name.
func (cp *ControlPlane) RegisterAPIService(ctx context.Context, group, version string, t APIServiceTarget) (string, error) {
	s, err := cp.firstRunning()
	if err != nil {
		return "", err
	}
	if !t.NoService {
		spec := map[string]any{"ports": []any{map[string]any{"name": "https", "port": t.Port, "protocol": "TCP"}}}
		if t.ExternalName != "" {
			spec["type"], spec["externalName"] = "ExternalName", t.ExternalName
		}
		svc := map[string]any{"apiVersion": "v1", "kind": "Service",
			"metadata": map[string]any{"name": t.Service, "namespace": "kube-system"}, "spec": spec}
		if err := s.postJSON(ctx, "/api/v1/namespaces/kube-system/services", svc); err != nil {
			return "", err
		}
	}
	name := version + "." + group
	as := map[string]any{"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"group": group, "version": version,
			"service":               map[string]any{"namespace": "kube-system", "name": t.Service, "port": t.Port},
			"insecureSkipTLSVerify": true, "groupPriorityMinimum": 100, "versionPriority": 100,
		}}
	if err := s.postJSON(ctx, "/apis/apiregistration.k8s.io/v1/apiservices", as); err != nil {
		return "", err
	}
	cp.logf("harness: APIService %s -> service kube-system/%s port %d (externalName %q, no service %v)", name, t.Service, t.Port, t.ExternalName, t.NoService)
	return name, nil
}

// APIServiceCondition is an APIService's Available condition.
type APIServiceCondition struct {
	Status, Reason, Message string
	LastTransitionTime      time.Time
}

func (c APIServiceCondition) String() string {
	return fmt.Sprintf("Available=%s %s: %s", c.Status, c.Reason, c.Message)
}

// APIServiceAvailable reads the named APIService's Available condition through s (zero
// Status "" if it has none yet).
func (s *Server) APIServiceAvailable(ctx context.Context, name string) (APIServiceCondition, error) {
	var as struct {
		Status struct {
			Conditions []struct {
				Type, Status, Reason, Message string
				LastTransitionTime            time.Time `json:"lastTransitionTime"`
			} `json:"conditions"`
		} `json:"status"`
	}
	if err := s.getJSON(ctx, "/apis/apiregistration.k8s.io/v1/apiservices/"+name, &as); err != nil {
		return APIServiceCondition{}, err
	}
	for _, c := range as.Status.Conditions {
		if c.Type == "Available" {
			return APIServiceCondition{Status: c.Status, Reason: c.Reason, Message: c.Message, LastTransitionTime: c.LastTransitionTime}, nil
		}
	}
	return APIServiceCondition{}, nil
}

// WaitAPIServiceAvailable polls the named APIService (through the first running server)
// every 250 ms until its Available condition has status want ("True"/"False"), and
// returns that condition.
func (cp *ControlPlane) WaitAPIServiceAvailable(ctx context.Context, name, want string, timeout time.Duration) (APIServiceCondition, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last APIServiceCondition
	for {
		s, err := cp.firstRunning()
		if err != nil {
			return last, err
		}
		c, err := s.APIServiceAvailable(ctx, name)
		if err == nil {
			last = c
			if c.Status == want {
				return c, nil
			}
		}
		select {
		case <-ctx.Done():
			return last, fmt.Errorf("APIService %s: not Available=%s within %s; last: %v (err %v)", name, want, timeout, last, err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (cp *ControlPlane) firstRunning() (*Server, error) {
	for _, s := range cp.servers {
		if s.Running() {
			return s, nil
		}
	}
	return nil, fmt.Errorf("no kube-apiserver is running")
}

func (s *Server) postJSON(ctx context.Context, path string, obj any) error {
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	r, err := s.Do(ctx, http.MethodPost, path, http.Header{"Content-Type": {"application/json"}}, strings.NewReader(string(b)))
	if err != nil {
		return err
	}
	if r.StatusCode != http.StatusCreated && r.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: POST %s: %s", s.Name, path, r)
	}
	return nil
}
