package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// renderKustomization is `kubectl kustomize dir` (kustomize's Go library, its default
// options): each object's YAML, in the order kustomize writes them (namespaces and RBAC first).
func renderKustomization(t *testing.T, dir string) []string {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	var docs []string
	for _, r := range m.Resources() {
		doc, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(doc))
	}
	return docs
}

// TestExporterBase: `kubectl apply -k deploy/exporter` on a real control plane (kas-a v1.36,
// kas-b v1.37): every object of the rendered base is created, none dry-run, the Deployment
// too — no kubelet runs its pod here, so its container runs as a process as a kubelet would
// start it: the Deployment's args as the apiserver stored them (the metrics address moved to a
// free local port), no kubeconfig, the in-cluster environment with a token of the Deployment's
// service account and the cluster's CA. Under the base's RBAC alone it becomes ready (/readyz
// 200), reads both servers (mvpctl_apiserver_up 1), and is refused nothing (no 403 on stderr).
func TestExporterBase(t *testing.T) {
	harness.SkipIfUnsupported(t)
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_37},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	admin := cp.Server("kas-a")
	createObjects(ctx, t, admin, "kustomize build "+exporterDeploy, renderKustomization(t, exporterDeploy), "")

	r, err := admin.Do(ctx, http.MethodGet, "/apis/apps/v1/namespaces/mvpctl/deployments/mvpctl-exporter", nil, nil)
	if err != nil || r.StatusCode != http.StatusOK {
		t.Fatalf("get the Deployment: %v %v", err, r)
	}
	var d appsv1.Deployment
	if err := json.Unmarshal(r.Body, &d); err != nil {
		t.Fatal(err)
	}
	c := d.Spec.Template.Spec.Containers[0]
	t.Logf("Deployment %s/%s stored: image %s, args %q, service account %s", d.Namespace, d.Name, c.Image, c.Args, d.Spec.Template.Spec.ServiceAccountName)
	if !strings.HasPrefix(c.Image, "ghcr.io/mvpctl/mvpctl:") || strings.HasSuffix(c.Image, ":latest") {
		t.Errorf("the stored Deployment runs %q, not the tagged image the base names", c.Image)
	}
	saDir := serviceAccountDir(ctx, t, cp, admin, d.Namespace, d.Spec.Template.Spec.ServiceAccountName)

	exporter, addr, stderrPath, apiserver := startPodExporter(t, admin, saDir, c.Args)
	began := time.Now()
	readyAt := waitFor(t, "the exporter's /readyz 200", 60*time.Second, func() bool {
		r, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == http.StatusOK
	})
	t.Logf("exporter ready %s after its start", readyAt.Sub(began).Round(time.Millisecond))
	for _, s := range []string{"kas-a", "kas-b"} {
		up := regexp.MustCompile(`(?m)^mvpctl_apiserver_up\{[^}]*server="` + s + `"[^}]*\} 1$`)
		waitFor(t, "mvpctl_apiserver_up of "+s+" 1", 30*time.Second, func() bool { return up.MatchString(scrape(t, addr)) })
	}

	if err := exporter.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = exporter.Wait()
	stderr, _ := os.ReadFile(stderrPath)
	t.Logf("exporter stderr:\n%s", stderr)
	if !strings.Contains(string(stderr), "[watch] in-cluster: "+apiserver+", service account of "+saDir) {
		t.Error("the exporter did not say it read in-cluster")
	}
	if refused(string(stderr)) {
		t.Error("the exporter was refused something (403, forbidden): the base's RBAC grants too little")
	}
}

// startPodExporter runs mvpctl with a container's args as a kubelet would start it in a pod of
// the service account whose token and CA are in saDir, the kubernetes Service at server: no
// kubeconfig, no HOME of its own, the in-cluster environment. --metrics-address moves to a
// free local address. It returns the process, that address, its stderr's file and the
// apiserver URL it was given.
func startPodExporter(t *testing.T, server *harness.Server, saDir string, containerArgs []string) (*exec.Cmd, string, string, string) {
	t.Helper()
	addr := freeLocalAddr(t)
	args := append([]string(nil), containerArgs...)
	moved := false
	for i, a := range args {
		if strings.HasPrefix(a, "--metrics-address=") {
			args[i], moved = "--metrics-address="+addr, true
		}
	}
	if !moved {
		t.Fatalf("the Deployment's args %q have no --metrics-address=", containerArgs)
	}
	host, port, err := net.SplitHostPort(strings.TrimPrefix(server.URL, "https://"))
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "KUBECONFIG=") && !strings.HasPrefix(e, "HOME=") {
			env = append(env, e)
		}
	}
	env = append(env, "HOME="+t.TempDir(), "KUBERNETES_SERVICE_HOST="+host, "KUBERNETES_SERVICE_PORT="+port, "MVPCTL_SERVICE_ACCOUNT_DIR="+saDir)
	stderrF, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	exporter := exec.Command(mvpctlBinary(t), args...)
	exporter.Env, exporter.Stdout, exporter.Stderr = env, io.Discard, stderrF
	if err := exporter.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = exporter.Process.Kill(); _ = exporter.Wait() })
	return exporter, addr, stderrF.Name(), "https://" + net.JoinHostPort(host, port)
}

// scrape is the exporter's /metrics ("" when it does not answer).
func scrape(t *testing.T, addr string) string {
	t.Helper()
	r, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return ""
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return string(b)
}

// refusedText is an apiserver's refusal in an exporter's stderr: the status 403 as a number of
// its own (a temporary directory's random name, "TestExporter189540308", holds the digits too)
// or the word forbidden.
var refusedText = regexp.MustCompile(`(^|[^0-9])403([^0-9]|$)|(?i)forbidden`)

// refused reports whether stderr says an apiserver refused the exporter something.
func refused(stderr string) bool { return refusedText.MatchString(stderr) }
