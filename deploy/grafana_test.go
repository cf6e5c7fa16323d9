package deploy_test

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"
)

// TestGrafanaDashboard: the fleet dashboard is valid JSON; every panel has a title and
// queries; every query, and the cluster variable's, names only metrics the exporter exports
// (or the apiservers' and Prometheus' own), and keeps to the selected clusters.
func TestGrafanaDashboard(t *testing.T) {
	const file = "grafana/mvpctl-fleet.json"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		UID        string
		Title      string
		Templating struct {
			List []struct {
				Name, Type string
				Query      any
			}
		}
		Panels []struct {
			ID      int
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if d.UID == "" || d.Title == "" || len(d.Panels) == 0 {
		t.Fatalf("%s: no uid, title or panels", file)
	}
	exported := exportedMetrics(t)
	ids := map[int]bool{}
	for _, p := range d.Panels {
		if p.Title == "" || len(p.Targets) == 0 || ids[p.ID] {
			t.Errorf("panel %d %q: want a unique id, a title and queries", p.ID, p.Title)
		}
		ids[p.ID] = true
		for _, q := range p.Targets {
			if unknown := unknownMetrics(q.Expr, exported); len(unknown) > 0 || len(metricNames(q.Expr)) == 0 {
				t.Errorf("panel %q: %s names %q, which the exporter does not export (or no metric)", p.Title, q.Expr, unknown)
			}
			if !regexp.MustCompile(`cluster=~"\$cluster"`).MatchString(q.Expr) {
				t.Errorf("panel %q: %s does not keep to the selected clusters", p.Title, q.Expr)
			}
		}
	}
	labelValues := regexp.MustCompile(`^label_values\((\w+), cluster\)$`)
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		q, _ := v.Query.(map[string]any)
		s, _ := q["query"].(string)
		m := labelValues.FindStringSubmatch(s)
		if m == nil || !exported[m[1]] {
			t.Errorf("variable %s: query %q: want label_values(METRIC, cluster) of an exported metric", v.Name, s)
		}
	}
}
