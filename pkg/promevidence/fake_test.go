package promevidence

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeSeries is one series of the counts query's answer.
type fakeSeries struct {
	labels map[string]string
	value  string
}

// fakeProm answers the three queries Read runs as a Prometheus (or Thanos Query) would: the
// range query with points from oldest to the end, the counts and the deprecated APIs as
// vectors. Series carry a cluster label; a query's cluster="..." matcher keeps that cluster's.
type fakeProm struct {
	oldest     time.Time // first point of the range query; zero: no series at all
	counts     []fakeSeries
	deprecated []fakeSeries
	// status, when set, is the HTTP status every answer has.
	status int
	// delay holds every answer back.
	delay time.Duration
	// pad lengthens every answer by that many bytes of white space.
	pad int
	// queries are the queries asked, in order.
	queries []string
	// cached: answers are encoded once per path and query (benchmarks measure the reader).
	cached bool
	cache  map[string][]byte
}

var clusterMatcher = regexp.MustCompile(`cluster="([^"]*)"`)

func (f *fakeProm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-r.Context().Done():
			return
		}
	}
	if f.status != 0 {
		http.Error(w, http.StatusText(f.status), f.status)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	q := r.Form.Get("query")
	f.queries = append(f.queries, q)
	key := r.URL.Path + "?" + q
	if b, ok := f.cache[key]; ok {
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
		return
	}
	cluster := ""
	if m := clusterMatcher.FindStringSubmatch(q); m != nil {
		cluster = m[1]
	}
	keep := func(s fakeSeries) bool { return cluster == "" || s.labels["cluster"] == cluster }
	var data any
	switch {
	case strings.HasPrefix(r.URL.Path, "/api/v1/query_range"):
		start, _ := strconv.ParseFloat(r.Form.Get("start"), 64)
		// As Prometheus parses a time: to the nearest millisecond.
		sec, frac := math.Modf(start)
		start = sec + math.Round(frac*1000)/1000
		end, _ := strconv.ParseFloat(r.Form.Get("end"), 64)
		step, _ := strconv.ParseFloat(r.Form.Get("step"), 64)
		result := []any{}
		matched := false
		for _, s := range f.counts {
			matched = matched || keep(s)
		}
		if !f.oldest.IsZero() && (matched || len(f.counts) == 0) {
			var values [][2]any
			for t := start; t <= end; t += step {
				if t >= float64(f.oldest.Unix()) {
					values = append(values, [2]any{t, "3"})
				}
			}
			if len(values) > 0 {
				result = append(result, map[string]any{"metric": map[string]string{}, "values": values})
			}
		}
		data = map[string]any{"resultType": "matrix", "result": result}
	default:
		series := f.counts
		if strings.Contains(q, DeprecatedAPIsMetric) {
			series = f.deprecated
		}
		result := []any{}
		for _, s := range series {
			if !keep(s) {
				continue
			}
			l := map[string]string{}
			for k, v := range s.labels {
				if k != "cluster" {
					l[k] = v
				}
			}
			result = append(result, map[string]any{"metric": l, "value": [2]any{1790000000, s.value}})
		}
		data = map[string]any{"resultType": "vector", "result": result}
	}
	w.Header().Set("Content-Type", "application/json")
	b, _ := json.Marshal(map[string]any{"status": "success", "data": data})
	if f.cached {
		if f.cache == nil {
			f.cache = map[string][]byte{}
		}
		f.cache[key] = b
		f.queries = nil
	}
	w.Write(b)
	if f.pad > 0 {
		w.Write([]byte(strings.Repeat(" ", f.pad)))
	}
}

// startFake serves f; its URL.
func startFake(t testing.TB, f *fakeProm) string {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL
}

// requestSeries is a counts series of one cluster's instance.
func requestSeries(cluster, instance, group, version, resource, verb, value string) fakeSeries {
	return fakeSeries{labels: map[string]string{"cluster": cluster, "instance": instance, "group": group, "version": version, "resource": resource, "subresource": "", "verb": verb}, value: value}
}

// fleet are the counts series of n clusters of servers apiservers each, with perServer
// GVR/verb series on each.
func fleet(n, servers, perServer int) []fakeSeries {
	var out []fakeSeries
	for c := 0; c < n; c++ {
		for s := 0; s < servers; s++ {
			for i := 0; i < perServer; i++ {
				out = append(out, requestSeries(fmt.Sprintf("c%d", c), fmt.Sprintf("10.0.%d.%d:6443", c, s), fmt.Sprintf("g%d.example.com", i/4), "v1", fmt.Sprintf("r%d", i), "LIST", strconv.Itoa(i+1)))
			}
		}
	}
	return out
}
