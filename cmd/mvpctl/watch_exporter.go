package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/watch"
)

// The exporter mode of `mvpctl watch`: the same loop, its state served to Prometheus. It is a
// flag of watch, not a command of its own, so that one loop with one set of flags serves a
// person at a terminal and a Deployment alike (docs/exporter.md).

// exporterFlags are the flags of the exporter mode.
type exporterFlags struct {
	address string
	// to and preflightEvery configure the upgrade readiness gate (watch.UpgradeReadiness).
	to             string
	preflightEvery int
	// evidence: how far back the gate's client evidence must look, and the Prometheus that
	// keeps it.
	evidence evidenceFlags
	fs       *pflag.FlagSet
}

func (e *exporterFlags) addFlags(fs *pflag.FlagSet) {
	e.fs = fs
	fs.StringVar(&e.address, "metrics-address", "", "serve /metrics (Prometheus), /healthz and /readyz on this address (e.g. :9090) while watching (a first read that fails is retried); without a kubeconfig, read the cluster the pod runs in (docs/exporter.md)")
	fs.StringVar(&e.to, "to", "", "with --metrics-address: the version the upgrade readiness gate checks an upgrade to (default: the minor after the oldest apiserver's)")
	fs.IntVar(&e.preflightEvery, "preflight-every", watch.DefaultReadinessEvery, "with --metrics-address: run the upgrade readiness gate (preflight) when the plane changed, or else every this many reads; 0 turns it off")
	e.evidence.addFlags(fs)
}

// validate checks the exporter's flags: the readiness flags need --metrics-address, --to a
// version with a profile.
func (e *exporterFlags) validate() error {
	switch {
	case e.preflightEvery < 0:
		return fmt.Errorf("--preflight-every cannot be negative, got %d", e.preflightEvery)
	case e.address == "" && (e.to != "" || e.fs != nil && e.fs.Changed("preflight-every")):
		return errors.New("--to and --preflight-every configure the exporter's upgrade readiness: give --metrics-address")
	case e.to != "":
		if _, err := profile.Lookup(e.to); err != nil {
			return fmt.Errorf("--to: %w", err)
		}
	}
	return e.evidence.validate()
}

// The in-cluster service account: the Kubernetes service environment variables and the
// files kubelet mounts. The directory can be moved with the environment variable (a sidecar
// that mounts the token elsewhere, the end-to-end test).
const (
	serviceAccountDir    = "/var/run/secrets/kubernetes.io/serviceaccount"
	envServiceAccountDir = "MVPCTL_SERVICE_ACCOUNT_DIR"
)

// errNotPointed is the one line of an exporter with nothing to read.
var errNotPointed = errors.New("no kubeconfig and not in a cluster: give --kubeconfig (or $KUBECONFIG, ~/.kube/config, --server), " +
	"or run it in a pod with a service account (KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT and " + serviceAccountDir + ")")

// useInClusterConfig points the connection flags at the cluster the process runs in when no
// kubeconfig is given: the kubernetes Service (it balances over every apiserver, as the
// watch wants) with the service account's token and CA — as rest.InClusterConfig, from a
// directory that can be moved. It says on errOut which it used; with neither, errNotPointed.
func useInClusterConfig(g *globalOptions, errOut io.Writer) error {
	cf := g.configFlags
	if cf.ServerOverride() != "" {
		return nil
	}
	if raw, err := cf.ToRawKubeConfigLoader().RawConfig(); err != nil || len(raw.Clusters) > 0 {
		return nil // a kubeconfig (a broken one says what is wrong with it when used)
	}
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return errNotPointed
	}
	dir := serviceAccountDir
	if d := os.Getenv(envServiceAccountDir); d != "" {
		dir = d
	}
	token, ca := filepath.Join(dir, "token"), filepath.Join(dir, "ca.crt")
	for _, f := range []string{token, ca} {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("in a cluster (KUBERNETES_SERVICE_HOST is set) but no service account: %w; mount one (automountServiceAccountToken) or give --kubeconfig", err)
		}
	}
	server := "https://" + net.JoinHostPort(host, port)
	cf.Overrides.ClusterInfo.Server = server
	cf.Overrides.ClusterInfo.CertificateAuthority = ca
	cf.Overrides.AuthInfo.TokenFile = token // re-read as kubelet rotates it
	fmt.Fprintf(errOut, "[watch] in-cluster: %s, service account of %s\n", server, dir)
	return nil
}

// exporter serves a watch's metrics.
type exporter struct {
	metrics    *watch.Metrics
	leaseWatch *watch.LeaseWatchMetrics
	srv        *http.Server
	done       chan struct{}
}

// startExporterFor is the exporter mode's start: the in-cluster configuration when no
// kubeconfig is given, then the server.
func startExporterFor(g *globalOptions, e *exporterFlags, loop *watch.Loop, errOut io.Writer) (*exporter, error) {
	if err := useInClusterConfig(g, errOut); err != nil {
		return nil, err
	}
	return startExporter(e, loop, errOut)
}

// startExporter listens on the flags' address (a bad address fails here, before any read),
// makes the loop report to the metrics and wait for its plane, and serves until stop.
func startExporter(e *exporterFlags, loop *watch.Loop, errOut io.Writer) (*exporter, error) {
	ln, err := net.Listen("tcp", e.address)
	if err != nil {
		return nil, fmt.Errorf("--metrics-address %s: %w", e.address, err)
	}
	x := &exporter{metrics: watch.NewMetrics(), leaseWatch: &watch.LeaseWatchMetrics{}, done: make(chan struct{})}
	if e.preflightEvery > 0 {
		cfg := watch.UpgradeReadiness{To: e.to, Every: e.preflightEvery, EvidenceWindow: time.Duration(e.evidence.window)}
		if e.evidence.prometheus != "" {
			read, err := e.evidence.prometheusReader(func(msg string) { output.Fprintf(errOut, "warning: %s\n", msg) })
			if err != nil {
				ln.Close()
				return nil, err
			}
			cfg.Prometheus = read
		}
		x.metrics.EnableUpgradeReadiness(cfg)
	}
	reg := prometheus.NewRegistry()
	refused := newScrapesRefused()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), x.metrics, x.leaseWatch, refused)
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", limitScrapes(promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg, Timeout: 10 * time.Second}), refused))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if err := x.metrics.Ready(); err != nil {
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok\n")
	})
	x.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second,
		MaxHeaderBytes: 16 << 10}
	go func() {
		defer close(x.done)
		if err := x.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			output.Fprintf(errOut, "warning: --metrics-address %s: %s\n", e.address, oneLine(err.Error()))
		}
	}()
	fmt.Fprintf(errOut, "[watch] serving /metrics, /healthz and /readyz on %s\n", ln.Addr())
	loop.Sink, loop.RetryFirstRead = x.metrics, true
	return x, nil
}

// stop ends the server within a second: scrapes in flight are cut.
func (x *exporter) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if err := x.srv.Shutdown(ctx); err != nil {
		x.srv.Close()
	}
	<-x.done
}
