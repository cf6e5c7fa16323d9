package deploy_test

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mvpctl/mvpctl/pkg/watch"
)

// notMetrics are the PromQL words that are not metric names: keywords, operators and the
// aggregations (which may be followed by `by (...)` rather than by their parenthesis).
var notMetrics = map[string]bool{
	"and": true, "or": true, "unless": true, "bool": true, "offset": true, "atan2": true,
	"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
	"sum": true, "min": true, "max": true, "avg": true, "group": true, "stddev": true, "stdvar": true, "count": true,
	"count_values": true, "bottomk": true, "topk": true, "quantile": true, "limitk": true, "limit_ratio": true,
}

// groupingWords take a label list in parentheses, which names no metric.
var groupingWords = map[string]bool{"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true}

// metricNames are the metric names a PromQL expression selects: every identifier that is not
// a keyword, an aggregation, a function (followed by its parenthesis), a label (in a matcher
// block or a grouping list), in a string, a range or a number.
func metricNames(expr string) []string {
	var names []string
	isStart := func(c byte) bool { return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	isPart := func(c byte) bool { return isStart(c) || c >= '0' && c <= '9' }
	skipTo := func(i int, close byte) int { // the index after close, quotes respected
		for i < len(expr) && expr[i] != close {
			if q := expr[i]; q == '"' || q == '\'' || q == '`' {
				i = skipString(expr, i)
				continue
			}
			i++
		}
		return i + 1
	}
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			i = skipString(expr, i)
		case c == '{':
			i = skipTo(i+1, '}')
		case c == '[':
			i = skipTo(i+1, ']')
		case c == '#':
			i = skipTo(i, '\n')
		case c >= '0' && c <= '9' || c == '.':
			for i < len(expr) && (isPart(expr[i]) || expr[i] == '.') {
				i++
			}
		case c == '$': // a dashboard variable ($cluster, $__rate_interval)
			for i++; i < len(expr) && isPart(expr[i]); i++ {
			}
		case isStart(c):
			j := i
			for j < len(expr) && isPart(expr[j]) {
				j++
			}
			word := expr[i:j]
			k := j
			for k < len(expr) && (expr[k] == ' ' || expr[k] == '\n' || expr[k] == '\t') {
				k++
			}
			switch {
			case groupingWords[word] && k < len(expr) && expr[k] == '(':
				j = skipTo(k+1, ')')
			case notMetrics[word], k < len(expr) && expr[k] == '(':
			default:
				names = append(names, word)
			}
			i = j
		default:
			i++
		}
	}
	sort.Strings(names)
	return slices.Compact(names)
}

func skipString(s string, i int) int {
	q := s[i]
	for i++; i < len(s) && s[i] != q; i++ {
		if s[i] == '\\' && q != '`' {
			i++
		}
	}
	return i + 1
}

func TestMetricNames(t *testing.T) {
	for expr, want := range map[string]string{
		`max by (cluster, server) (mvpctl_window_open_seconds{reason!~"transport|x{y}"}) and on (cluster, group) (sum by (group) (rate(apiserver_request_total[10m])) > 0)`: "apiserver_request_total mvpctl_window_open_seconds",
		`max by (cluster) (time() - mvpctl_last_read_timestamp_seconds) > 300 or up{job="a"} == 0`:                                                                          "mvpctl_last_read_timestamp_seconds up",
		`sum(increase(mvpctl_windows_opened_total{cluster=~"$cluster"}[$__rate_interval])) by (server) / 1e3`:                                                               "mvpctl_windows_opened_total",
		`count(count by (cluster, version) (mvpctl_apiserver_info)) > bool 1 # a comment naming no_metric`:                                                                  "mvpctl_apiserver_info",
	} {
		if got := strings.Join(metricNames(expr), " "); got != want {
			t.Errorf("%s:\n got %s\nwant %s", expr, got, want)
		}
	}
}

// exportedMetrics are the names of every metric pkg/watch's Metrics exports, from its
// descriptions (a metric never seen yet is described all the same).
func exportedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	ch := make(chan *prometheus.Desc, 100)
	go func() { watch.NewMetrics().Describe(ch); close(ch) }()
	re := regexp.MustCompile(`fqName: "([^"]+)"`)
	names := map[string]bool{}
	for d := range ch {
		m := re.FindStringSubmatch(d.String())
		if m == nil {
			t.Fatalf("cannot read the name of %s", d)
		}
		names[m[1]] = true
	}
	if len(names) < 10 {
		t.Fatalf("only %d metrics described", len(names))
	}
	return names
}

// foreignMetrics are the metrics the rules and the dashboard read that the exporter does not
// export: the apiservers' own (scraped as usual), Prometheus' scrape health and alerts.
var foreignMetrics = map[string]bool{"apiserver_request_total": true, "up": true, "ALERTS": true}

// unknownMetrics are the names expr selects that neither the exporter nor foreignMetrics has.
func unknownMetrics(expr string, exported map[string]bool) []string {
	var out []string
	for _, n := range metricNames(expr) {
		if !exported[n] && !foreignMetrics[n] {
			out = append(out, n)
		}
	}
	return out
}
