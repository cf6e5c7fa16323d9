package harness

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The metrics-server tools module pins the version the harness names: the cache key and the
// binary's reported version come from MetricsServerVersion, the binary from go.mod.
func TestMetricsServerToolsModuleMatchesVersion(t *testing.T) {
	r, err := metricsServerRecipe()
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(r.modDir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^require sigs\.k8s\.io/metrics-server (\S+)$`).FindSubmatch(mod)
	if m == nil || string(m[1]) != MetricsServerVersion {
		t.Fatalf("%s/go.mod: want `require sigs.k8s.io/metrics-server %s`, found %q", r.modDir, MetricsServerVersion, m)
	}
	if !strings.Contains(strings.Join(r.args, " "), "version.gitVersion="+MetricsServerVersion) {
		t.Errorf("build args %q do not stamp %s", r.args, MetricsServerVersion)
	}
}

// Plan with helpers lists etcd, metrics-server, promtool and prometheus before the
// kube-apiservers, each at its own cache path, so e2e-prebuild warms them too.
func TestPlanListsHelpersFirst(t *testing.T) {
	t.Setenv(EnvCache, t.TempDir())
	plan, err := Plan(true, V1_36)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range plan {
		got = append(got, p.What+" "+filepath.Base(filepath.Dir(filepath.Dir(p.Path))))
		if p.Cached {
			t.Errorf("%s: cached in an empty cache dir", p.What)
		}
	}
	want := []string{"etcd etcd", "metrics-server " + MetricsServerVersion + " metrics-server",
		"promtool " + PrometheusVersion + " promtool", "prometheus " + PrometheusVersion + " prometheus", "kube-apiserver " + V1_36 + " kube-apiserver"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Plan(true, %s) = %q, want %q", V1_36, got, want)
	}
	if plan, _ := Plan(false, V1_36); len(plan) != 1 {
		t.Errorf("Plan(false, %s): %d entries, want only the kube-apiserver", V1_36, len(plan))
	}
}
