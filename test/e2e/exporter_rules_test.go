package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

const exporterDeploy = "../../deploy/exporter"

// exporterRuleGroups is the PrometheusRule's spec (its groups: a Prometheus rule file), with
// edit applied to its text.
func exporterRuleGroups(t *testing.T, edit func(string) string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(exporterDeploy, "prometheus-operator", "prometheusrule.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var pr struct {
		Spec map[string]any `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &pr); err != nil {
		t.Fatal(err)
	}
	out, err := yaml.Marshal(pr.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		out = []byte(edit(string(out)))
	}
	return out
}

// TestExporterAlertRules runs `promtool check rules` and `promtool test rules` (promtool
// built from its Go module) on deploy/exporter's PrometheusRule and its tests
// (rules_test.yaml): every alert fires when, and with the labels and annotations, the tests
// say. The same tests against a rule whose `for:` was lengthened fail: they can.
func TestExporterAlertRules(t *testing.T) {
	tests, err := os.ReadFile(filepath.Join(exporterDeploy, "prometheus-operator", "rules_test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(edit func(string) string) (string, error) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "mvpctl.rules.yaml"), exporterRuleGroups(t, edit), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "rules_test.yaml"), tests, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := harness.RunPromtool(dir, "check", "rules", "mvpctl.rules.yaml"); err != nil {
			return out, err
		}
		return harness.RunPromtool(dir, "test", "rules", "rules_test.yaml")
	}
	out, err := run(nil)
	t.Logf("promtool:\n%s", out)
	if err != nil {
		t.Fatalf("promtool: %v", err)
	}
	var alerts int
	for _, l := range strings.Split(string(exporterRuleGroups(t, nil)), "\n") {
		if strings.Contains(l, "alert: ") {
			name := strings.TrimSpace(strings.SplitN(l, "alert: ", 2)[1])
			alerts++
			if !strings.Contains(string(tests), "alertname: "+name+"\n") {
				t.Errorf("rules_test.yaml does not test %s", name)
			}
		}
	}
	if alerts == 0 {
		t.Fatal("no alert in the PrometheusRule")
	}
	if out, err := run(func(s string) string { return strings.Replace(s, "for: 1m", "for: 3m", 1) }); err == nil {
		t.Errorf("promtool test rules passed with a critical alert's for: lengthened to 3m:\n%s", out)
	}
}
