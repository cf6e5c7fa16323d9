package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// PrometheusVersion is the github.com/prometheus/prometheus module the tools module pins
// (Prometheus 3.x); promtool and the server are built from it with -tags remove_all_sd
// (static targets only: no service-discovery SDKs, a much shorter build).
const PrometheusVersion = "v0.316.0"

func prometheusRecipe(bin string) (recipe, error) {
	tools, err := ToolsDir()
	if err != nil {
		return recipe{}, err
	}
	modDir := filepath.Join(tools, "prometheus")
	if _, err := os.Stat(filepath.Join(modDir, "go.sum")); err != nil {
		return recipe{}, fmt.Errorf("%s: no tools module at %s: %w", bin, modDir, err)
	}
	return recipe{what: bin + " " + PrometheusVersion, modDir: modDir, bin: bin, key: PrometheusVersion,
		args: []string{"build", "-tags", "remove_all_sd", "github.com/prometheus/prometheus/cmd/" + bin}}, nil
}

func promtoolRecipe() (recipe, error)         { return prometheusRecipe("promtool") }
func prometheusServerRecipe() (recipe, error) { return prometheusRecipe("prometheus") }

// Promtool returns promtool, building it from its tools module if it is not in the cache.
func Promtool() (Binary, error) {
	r, err := promtoolRecipe()
	if err != nil {
		return Binary{}, err
	}
	return ensureBinary(r)
}

// PrometheusServer returns the prometheus binary, building it if it is not in the cache.
func PrometheusServer() (Binary, error) {
	r, err := prometheusServerRecipe()
	if err != nil {
		return Binary{}, err
	}
	return ensureBinary(r)
}

// Prometheus is a Prometheus server the test started on 127.0.0.1, with its HTTP API.
type Prometheus struct {
	URL string
	Dir string
	p   *proc
}

// StartPrometheus runs Prometheus with config (prometheus.yml's text; files it names by
// relative path are in dir, the test's to write) and waits until it is ready. It is stopped
// when the test ends, its log dumped if the test failed.
func StartPrometheus(t testing.TB, dir, config string) *Prometheus {
	t.Helper()
	bin, err := PrometheusServer()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "prometheus.log")
	p, err := startProc("prometheus", log, "", []string{bin.Path,
		"--config.file=" + filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path=" + filepath.Join(dir, "data"),
		"--web.listen-address=127.0.0.1:" + strconv.Itoa(port),
		"--log.level=warn"})
	if err != nil {
		t.Fatal(err)
	}
	pr := &Prometheus{URL: "http://127.0.0.1:" + strconv.Itoa(port), Dir: dir, p: p}
	t.Cleanup(func() {
		_ = p.term(5 * time.Second)
		if t.Failed() {
			t.Logf("prometheus log (last 40 lines):\n%s", tailFile(log, 40))
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		r, err := http.Get(pr.URL + "/-/ready")
		if err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				return pr
			}
		}
		if p.exited() || time.Now().After(deadline) {
			t.Fatalf("prometheus not ready: %v; log:\n%s", err, tailFile(log, 40))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Sample is one series of an instant query's result.
type Sample struct {
	Labels map[string]string
	Value  float64
}

// Query evaluates expr now through /api/v1/query.
func (p *Prometheus) Query(ctx context.Context, expr string) ([]Sample, error) {
	var res struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		} `json:"result"`
	}
	if err := p.api(ctx, "/api/v1/query?query="+url.QueryEscape(expr), &res); err != nil {
		return nil, err
	}
	var out []Sample
	for _, r := range res.Result {
		s, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("query %s: value %v", expr, r.Value[1])
		}
		out = append(out, Sample{Labels: r.Metric, Value: v})
	}
	return out, nil
}

// Alert is one alert of /api/v1/alerts: pending or firing.
type Alert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	State       string            `json:"state"`
	ActiveAt    time.Time         `json:"activeAt"`
}

// Alerts are the alerts pending or firing now.
func (p *Prometheus) Alerts(ctx context.Context) ([]Alert, error) {
	var res struct {
		Alerts []Alert `json:"alerts"`
	}
	err := p.api(ctx, "/api/v1/alerts", &res)
	return res.Alerts, err
}

// TargetsUp are the scrape targets' health by scrape URL ("up", "down", "unknown"), with the
// last error.
func (p *Prometheus) TargetsUp(ctx context.Context) (map[string]string, error) {
	var res struct {
		ActiveTargets []struct {
			ScrapeURL string `json:"scrapeUrl"`
			Health    string `json:"health"`
			LastError string `json:"lastError"`
		} `json:"activeTargets"`
	}
	if err := p.api(ctx, "/api/v1/targets", &res); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, t := range res.ActiveTargets {
		out[t.ScrapeURL] = t.Health + " " + t.LastError
	}
	return out, nil
}

func (p *Prometheus) api(ctx context.Context, path string, data any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+path, nil)
	if err != nil {
		return err
	}
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer r.Body.Close()
	b, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		return err
	}
	var env struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return fmt.Errorf("GET %s: %d: %s", path, r.StatusCode, b)
	}
	if env.Status != "success" {
		return fmt.Errorf("GET %s: %s", path, env.Error)
	}
	return json.Unmarshal(env.Data, data)
}

// RunPromtool runs promtool with args in dir and returns its combined output.
func RunPromtool(dir string, args ...string) (string, error) {
	bin, err := Promtool()
	if err != nil {
		return "", err
	}
	cmd := exec.Command(bin.Path, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}
