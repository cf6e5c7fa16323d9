package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/mvpctl/mvpctl/pkg/clientevidence"
	"github.com/mvpctl/mvpctl/pkg/replay"
	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
)

// The Helm releases at the run's budget: helmBudgetReleases releases whose manifests are
// helmBudgetManifest bytes each, so that the budget (replay.MaxEvidenceBytes) holds four of
// them and is reached at the fifth.
const (
	helmBudgetReleases = 40
	helmBudgetManifest = 30 << 20
)

// helmBudgetCluster is a control plane of two apiservers of the same version serving the same
// APIs, whose upgrade the gate passes, and whose Secrets are helmBudgetReleases Helm release
// records of helmBudgetManifest bytes of manifest each, listed in pages as kube-apiserver lists
// them. It returns a kubeconfig for it. listed, when set, is called as a page is served.
func helmBudgetCluster(tb testing.TB, listed func()) (kubeconfig string) {
	tb.Helper()
	if helmBudgetManifest > clientevidence.MaxHelmManifest || 5*helmBudgetManifest <= replay.MaxEvidenceBytes || 4*helmBudgetManifest > replay.MaxEvidenceBytes {
		tb.Fatalf("%d MiB manifests: want four within the budget, the fifth past it", helmBudgetManifest>>20)
	}
	records := helmRecords(tb, helmBudgetReleases, helmManifest(helmBudgetManifest))
	secrets := func(w http.ResponseWriter, r *http.Request) {
		if listed != nil {
			listed()
		}
		var start, limit int
		fmt.Sscan(r.URL.Query().Get("continue"), &start)
		if _, err := fmt.Sscan(r.URL.Query().Get("limit"), &limit); err != nil || limit <= 0 {
			limit = len(records)
		}
		end, cont := min(start+limit, len(records)), ""
		if end < len(records) {
			cont = fmt.Sprint(end)
		}
		items := make([]map[string]any, 0, end-start)
		for i := start; i < end; i++ {
			name := fmt.Sprintf("rel-%02d", i)
			items = append(items, map[string]any{
				"metadata": map[string]any{"namespace": "apps", "name": "sh.helm.release.v1." + name + ".v1",
					"labels": map[string]string{"owner": "helm", "name": name, "status": "deployed", "version": "1"}},
				"type": clientevidence.HelmReleaseType, "data": map[string][]byte{"release": records[i]}})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"kind": "SecretList", "apiVersion": "v1", "metadata": map[string]string{"continue": cont}, "items": items})
	}
	p := dt.NewPKI(tb)
	cluster := &dt.Cluster{CRDsJSON: dt.CRDsJSONFixture, APIServicesJSON: []byte(`{"kind":"APIServiceList","apiVersion":"apiregistration.k8s.io/v1","items":[]}`)}
	var urls []string
	for _, name := range []string{"kas-a", "kas-b"} {
		s := (&dt.Server{Cluster: cluster, GitVersion: "v1.36.3", Mode: dt.ModeNoPeer, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true), Hooks: dt.Hooks136,
			Token: testToken, Override: map[string]http.HandlerFunc{"/api/v1/secrets": secrets}}).Start(tb, p)
		cluster.Leases = append(cluster.Leases, dt.IdentityLease("apiserver-"+strings.Repeat(name[4:], 26), name, s.Addr(), time.Now()))
		urls = append(urls, s.URL())
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["c"] = &clientcmdapi.Cluster{Server: urls[0], CertificateAuthorityData: p.CAPEM}
	kc.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: testToken}
	kc.Contexts["ctx"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	kc.CurrentContext = "ctx"
	kubeconfig = filepath.Join(tb.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, kubeconfig); err != nil {
		tb.Fatal(err)
	}
	return kubeconfig
}

// helmManifest is a rendered chart of size bytes: ConfigMaps of about 3 KiB, each after the
// `# Source:` comment helm writes.
func helmManifest(size int) string {
	var b strings.Builder
	b.Grow(size)
	payload := strings.Repeat("0123456789abcdef", 190)
	for i := 0; ; i++ {
		doc := fmt.Sprintf("---\n# Source: big/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big-%06d\n  namespace: apps\ndata:\n  payload: %q\n", i, payload)
		if b.Len()+len(doc) > size {
			return b.String()
		}
		b.WriteString(doc)
	}
}

// helmRecords are n release records (rel-00 …) of manifest, each as Helm 3 writes data.release:
// base64(gzip(JSON release)). The manifest is compressed once: a record is three gzip members
// (the JSON before the manifest, the manifest, the JSON after it), which gzip readers (Helm's
// and mvpctl's) read as one stream; at Helm's level, gzip.BestCompression.
func helmRecords(tb testing.TB, n int, manifest string) [][]byte {
	tb.Helper()
	member := func(s string) []byte {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		zw.Write([]byte(s))
		if err := zw.Close(); err != nil {
			tb.Fatal(err)
		}
		return b.Bytes()
	}
	quoted, err := json.Marshal(manifest)
	if err != nil {
		tb.Fatal(err)
	}
	body := member(string(quoted[1 : len(quoted)-1]))
	tail := member(`","info":{"status":"deployed"}}`)
	records := make([][]byte, n)
	for i := range records {
		head := member(fmt.Sprintf(`{"name":"rel-%02d","namespace":"apps","version":1,"manifest":"`, i))
		gz := append(append(append([]byte(nil), head...), body...), tail...)
		records[i] = []byte(base64.StdEncoding.EncodeToString(gz))
	}
	return records
}

// TestHelmBudget: 40 Helm releases of 30 MiB of manifest each, read by `preflight
// --helm-releases` through the apiserver's Secret list: the read is cut at the fifth release,
// where the run's budget is reached, and the gate says its evidence partial (exit 2).
// BenchmarkHelmBudget measures the same run as a process.
func TestHelmBudget(t *testing.T) {
	kc := helmBudgetCluster(t, nil)
	stdout, stderr, code := run(t, "preflight", "--kubeconfig", kc, "--to", "1.37", "--helm-releases")
	objects := 4 * strings.Count(helmManifest(helmBudgetManifest), "\nkind: ConfigMap\n")
	cut := "cut at helm release apps/rel-04 (revision 1), where the run reached its bound of 128 MiB over all sources"
	if code != ExitIncomplete || !strings.HasPrefix(stdout, "Result: partial (0 blocking, 0 warning") || !strings.Contains(stdout, fmt.Sprintf("Objects: %d object(s) in 4 file(s)", objects)) ||
		strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "warning: preflight: partial, exit 2") || !strings.Contains(stderr, cut) {
		t.Errorf("exit %d, want %d, partial, cut at the fifth release (%q)\nstdout:\n%s\nstderr:\n%s", code, ExitIncomplete, cut, stdout, stderr)
	}
}
