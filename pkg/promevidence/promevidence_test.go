package promevidence

import (
	"context"
	"strings"
	"testing"
	"time"
)

var readAt = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func TestRead(t *testing.T) {
	week := 7 * 24 * time.Hour
	for _, tc := range []struct {
		name     string
		fake     *fakeProm
		selector string
		timeout  time.Duration
		maxBytes int64
		wantErr  string // "" for a read
		check    func(t *testing.T, f *fakeProm, got string)
	}{
		{"a client kept across a restart: its count, the instance, the oldest sample", &fakeProm{oldest: readAt.Add(-8 * 24 * time.Hour), counts: []fakeSeries{
			requestSeries("prod", "10.0.0.1:6443", "storage.k8s.io", "v1beta1", "volumeattributesclasses", "LIST", "30"),
			requestSeries("prod", "10.0.0.2:6443", "", "v1", "pods", "GET", "0.5"),
		}, deprecated: []fakeSeries{{labels: map[string]string{"group": "storage.k8s.io", "version": "v1beta1", "resource": "volumeattributesclasses", "removed_release": "1.37"}, value: "1"}}}, "", 0, 0, "",
			func(t *testing.T, f *fakeProm, got string) {
				for _, q := range f.queries {
					if strings.Contains(q, "increase(") {
						t.Errorf("query %q uses increase(): a series that first appears counting has none", q)
					}
				}
				if !strings.Contains(f.queries[1], "max_over_time(apiserver_request_total{resource!=\"\"}[1w])") {
					t.Errorf("counts query %q", f.queries[1])
				}
			}},
		{"a selector keeps one cluster", &fakeProm{oldest: readAt.Add(-time.Hour), counts: fleet(3, 2, 2)}, `cluster="c1"`, 0, 0, "", nil},
		{"a selector matching nothing", &fakeProm{oldest: readAt.Add(-time.Hour), counts: fleet(3, 2, 2)}, `cluster="nope"`, 0, 0,
			`no apiserver_request_total series matches {cluster="nope"} in the last 1w: check --prometheus-selector`, nil},
		{"no series at all", &fakeProm{}, "", 0, 0, "no apiserver_request_total series in the last 1w: does this Prometheus scrape the apiservers?", nil},
		{"401", &fakeProm{status: 401}, "", 0, 0, "HTTP 401: check the credentials (--prometheus-config)", nil},
		{"slow", &fakeProm{delay: 2 * time.Second}, "", 200 * time.Millisecond, 0, "no answer within 200ms", nil},
		{"an answer past its bound", &fakeProm{oldest: readAt.Add(-time.Hour), counts: fleet(1, 1, 3), pad: 4096}, "", 0, 1024, "answer past its bound", nil},
		{"a count that is not a count", &fakeProm{oldest: readAt.Add(-time.Hour), counts: []fakeSeries{requestSeries("", "a", "", "v1", "pods", "LIST", "-3")}}, "", 0, 0, "-3 is negative: not a count", nil},
		{"+Inf", &fakeProm{oldest: readAt.Add(-time.Hour), counts: []fakeSeries{requestSeries("", "a", "", "v1", "pods", "LIST", "+Inf")}}, "", 0, 0, "+Inf is not a count", nil},
		{"a selector that is not label matchers", &fakeProm{}, `cluster=prod`, 0, 0, `"cluster=prod" is not a label matcher`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := startFake(t, tc.fake)
			start := time.Now()
			ev := Read(context.Background(), Options{URL: url, Selector: tc.selector, Window: week, Timeout: tc.timeout, MaxBytes: tc.maxBytes, Now: func() time.Time { return readAt }})
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("read took %s: not bounded", took)
			}
			if tc.wantErr != "" {
				if !strings.Contains(ev.Error, tc.wantErr) || len(ev.Counts) != 0 || strings.Contains(ev.Error, "\n") {
					t.Fatalf("error %q, %d count(s): want one line saying %q and no count", ev.Error, len(ev.Counts), tc.wantErr)
				}
				return
			}
			if ev.Error != "" {
				t.Fatalf("not read: %s", ev.Error)
			}
			held := tc.fake.oldest
			if held.Before(readAt.Add(-week)) {
				held = readAt.Add(-week) // no older sample is asked for
			}
			if ev.OldestSample == nil || ev.OldestSample.Before(held) || ev.OldestSample.Sub(held) > week/spanPoints {
				t.Errorf("oldest sample %v, want within a step after %v", ev.OldestSample, held)
			}
			if span, ok := ev.Span(); !ok || span > readAt.Sub(tc.fake.oldest) {
				t.Errorf("span %v: longer than held", span)
			}
			if tc.selector != "" {
				for _, c := range ev.Counts {
					if !strings.HasPrefix(c.Instance, "10.0.1.") {
						t.Errorf("count of another cluster: %+v", c)
					}
				}
				if len(ev.Counts) != 4 {
					t.Errorf("%d counts, want the 4 of cluster c1", len(ev.Counts))
				}
			}
			if tc.check != nil {
				tc.check(t, tc.fake, ev.Error)
				if len(ev.Counts) != 1 || ev.Counts[0].Count != 30 || ev.Counts[0].Instance != "10.0.0.1:6443" {
					t.Errorf("counts %+v: want the 30 LISTs on 10.0.0.1 (and not the half request, rounded down to 0)", ev.Counts)
				}
				if len(ev.Deprecated) != 1 || ev.Deprecated[0].RemovedRelease != "1.37" {
					t.Errorf("deprecated %+v", ev.Deprecated)
				}
			}
		})
	}
}

func TestPublicURL(t *testing.T) {
	if got := PublicURL("https://user:secret@prom.example.com/prometheus?token=x#f"); got != "https://prom.example.com/prometheus" {
		t.Errorf("PublicURL = %q", got)
	}
}

// TestQueriesFor: every query matches the selector after the request series' own matcher,
// separated by a comma, as docs/ci.md shows them; without a selector, that matcher alone.
func TestQueriesFor(t *testing.T) {
	for sel, want := range map[string]string{`cluster="e2e"`: `{resource!="",cluster="e2e"}`, "": `{resource!=""}`} {
		q := QueriesFor(sel, time.Hour)
		for name, query := range map[string]string{"counts": q.Counts, "deprecated": q.Deprecated, "held": q.Held} {
			if !strings.Contains(query, want) {
				t.Errorf("selector %q: the %s query %s lacks %s", sel, name, query, want)
			}
		}
	}
}

// TestReadSpanWholeWindow: a Prometheus that holds samples from before the window covers all
// of it, also when the read's time is finer than Prometheus' milliseconds.
func TestReadSpanWholeWindow(t *testing.T) {
	url := startFake(t, &fakeProm{oldest: readAt.Add(-time.Hour), counts: fleet(1, 1, 1)})
	at := readAt.Add(123_600_000 * time.Nanosecond) // rounds up to .124
	ev := Read(context.Background(), Options{URL: url, Window: 5 * time.Second, Now: func() time.Time { return at }})
	if span, ok := ev.Span(); !ok || span < 5*time.Second {
		t.Errorf("span %s (known %v), error %q: want the whole 5s window", span, ok, ev.Error)
	}
}
