package apimetrics

import (
	"maps"
	"strings"
	"testing"
)

const (
	rerouted = "apiserver_rerouted_request_total"
	errs     = "apiserver_peer_proxy_errors_total"
)

// TestParse: only the families asked for, by exact name; label values unescaped; timestamps,
// HELP lines and other families' lines (however malformed) ignored; values of one label set
// summed; counters, gauges and untyped samples read, histograms not.
func TestParse(t *testing.T) {
	tests := []struct {
		name, text string
		want       map[string]map[string]float64 // family → LabelKey of labels → value
		wantErr    bool
	}{
		{"counter with labels", `# HELP apiserver_rerouted_request_total [ALPHA] Total number of requests \n that were proxied
# TYPE apiserver_rerouted_request_total counter
apiserver_rerouted_request_total{code="200",group="batch",resource="jobs",version="v1"} 4
apiserver_rerouted_request_total{code="200",group="",resource="",version=""} 2
`, map[string]map[string]float64{rerouted: {
			LabelKey(map[string]string{"code": "200", "group": "batch", "resource": "jobs", "version": "v1"}): 4,
			LabelKey(map[string]string{"code": "200", "group": "", "resource": "", "version": ""}):            2,
		}, errs: {}}, false},
		{"a longer name sharing the prefix", `apiserver_rerouted_request_total_extra{code="200"} 7
apiserver_rerouted_request_total_created{code="200"} 1.7e9
apiserver_rerouted_request_total_broken{code="200"} not a number
`, map[string]map[string]float64{rerouted: {}, errs: {}}, false},
		{"untyped, a timestamp, no labels", `apiserver_peer_proxy_errors_total{type="endpoint_resolution"} 1 1700000000000
apiserver_rerouted_request_total 3
`, map[string]map[string]float64{rerouted: {LabelKey(nil): 3}, errs: {LabelKey(map[string]string{"type": "endpoint_resolution"}): 1}}, false},
		{"escaped label values", `apiserver_rerouted_request_total{code="200",group="a \"quoted\" \\ value",version="x\ny"} 1.5
`, map[string]map[string]float64{rerouted: {LabelKey(map[string]string{"code": "200", "group": `a "quoted" \ value`, "version": "x\ny"}): 1.5}, errs: {}}, false},
		{"one label set twice is summed", `apiserver_rerouted_request_total{code="200"} 1
apiserver_rerouted_request_total{code="200"} 2
`, map[string]map[string]float64{rerouted: {LabelKey(map[string]string{"code": "200"}): 3}, errs: {}}, false},
		{"other families are not read", `# TYPE apiserver_request_duration_seconds histogram
apiserver_request_duration_seconds_bucket{le="0.1"} not a number {{{
garbage line
apiserver_rerouted_request_total{code="503"} 2
`, map[string]map[string]float64{rerouted: {LabelKey(map[string]string{"code": "503"}): 2}, errs: {}}, false},
		{"gauge", `# TYPE apiserver_peer_proxy_errors_total gauge
apiserver_peer_proxy_errors_total{type="x"} 5
`, map[string]map[string]float64{rerouted: {}, errs: {LabelKey(map[string]string{"type": "x"}): 5}}, false},
		{"a malformed sample of a family asked for", `apiserver_rerouted_request_total{code="200" 1
`, nil, true},
		{"empty", ``, map[string]map[string]float64{rerouted: {}, errs: {}}, false},
	}
	for _, tt := range tests {
		got, err := Parse(strings.NewReader(tt.text), rerouted, errs)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: error %v, want one: %v", tt.name, err, tt.wantErr)
			continue
		}
		if tt.wantErr {
			continue
		}
		if len(got) != len(tt.want) {
			t.Errorf("%s: families %v, want %v", tt.name, got, tt.want)
		}
		for f, w := range tt.want {
			if !maps.Equal(got[f], Series(w)) {
				t.Errorf("%s: %s = %v, want %v", tt.name, f, got[f], w)
			}
		}
	}
}

func TestDeltasAndSumBy(t *testing.T) {
	before := Series{LabelKey(map[string]string{"code": "200", "group": "batch"}): 1}
	after := Series{
		LabelKey(map[string]string{"code": "200", "group": "batch"}): 4,
		LabelKey(map[string]string{"code": "200", "group": ""}):      2,
		LabelKey(map[string]string{"code": "503", "group": "apps"}):  0,
	}
	d := Deltas(before, after)
	if len(d) != 2 || d[0].Labels["group"] != "" || d[0].Delta != 2 || d[1].Labels["group"] != "batch" || d[1].Delta != 3 || d[1].Before != 1 {
		t.Errorf("deltas %+v (sorted by labels, unchanged series left out)", d)
	}
	if got := after.SumBy("code"); got["200"] != 6 || got["503"] != 0 || len(got) != 2 {
		t.Errorf("by code %v", got)
	}
}

func TestLabelKeyRoundTrip(t *testing.T) {
	for _, labels := range []map[string]string{
		nil,
		{"code": "200"},
		{"label": `a "quoted" \ value`, "b": "x\ny", "c": "日本", "d": `k="v",x`, "e": "tab\there"},
	} {
		got := ParseLabelKey(LabelKey(labels))
		if len(got) != len(labels) || !maps.Equal(got, labels) && len(labels) > 0 {
			t.Errorf("ParseLabelKey(LabelKey(%q)) = %q", labels, got)
		}
	}
}

// endless repeats line for ever: a /metrics body that never ends.
type endless struct {
	line []byte
	off  int
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], e.line[e.off:])
		n += c
		e.off = (e.off + c) % len(e.line)
	}
	return n, nil
}

// TestParseBounds: a body over each bound is an error naming the bound, never read whole.
func TestParseBounds(t *testing.T) {
	for _, tt := range []struct {
		name, line, want string
	}{
		{"series of a family asked for", `apiserver_rerouted_request_total{code="200",n="x"} 1` + "\n", "more than 50000 series of apiserver_rerouted_request_total"},
		{"lines of other families", "other 1\n", "more than 2000000 lines"},
		{"bytes of long comment lines", "# " + strings.Repeat("x", 4000) + "\n", "larger than 256 MiB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(&endless{line: []byte(tt.line)}, rerouted)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}
