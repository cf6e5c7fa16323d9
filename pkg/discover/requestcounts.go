package discover

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/mvpctl/mvpctl/internal/apimetrics"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Client evidence from a server's own counters: apiserver_request_total since its process
// started (mvp.RequestTotalMetric), read in the same GET /metrics as the peer-discovery sync
// errors.

// fetchMetrics reads /metrics once: the request counters always, the sync errors when the
// server's version exports them (withSyncErrors). The counts' ReadAt is set when the snapshot
// is assembled (its TakenAt), so that a snapshot's times come from one clock.
// refused says the counters were read but refused as not counts (requestCounts).
func fetchMetrics(ctx context.Context, c *serverClient, withSyncErrors bool) (rc *snapshot.RequestCounts, syncErrors map[string]float64, syncErr string, refused bool) {
	families := []string{mvp.RequestTotalMetric, mvp.ProcessStartTimeMetric}
	if withSyncErrors {
		families = append(families, syncErrorsMetric)
	}
	m, err := apimetrics.Fetch(ctx, c.Client, families...)
	if err != nil {
		rc := &snapshot.RequestCounts{Error: err.Error()}
		if !withSyncErrors || errors.Is(err, apimetrics.ErrForbidden) || ctx.Err() != nil {
			return rc, nil, err.Error(), false
		}
		// Past a bound (a cluster with very many resources has that many request series):
		// the sync errors, a handful of series, are still read on their own.
		m, err = apimetrics.Fetch(ctx, c.Client, syncErrorsMetric)
		if err != nil {
			return rc, nil, err.Error(), false
		}
		return rc, syncErrorsOf(m), "", false
	}
	if withSyncErrors {
		syncErrors = syncErrorsOf(m)
	}
	rc = requestCounts(m)
	return rc, syncErrors, "", rc.Error != ""
}

// syncErrorsOf sums the peer-discovery sync errors per type.
func syncErrorsOf(m apimetrics.Sample) map[string]float64 {
	byType := m[syncErrorsMetric].SumBy("type")
	delete(byType, "") // a sample without a type says nothing about which sync failed
	return byType
}

// requestCounts sums the request counter by group, version, resource, subresource and verb
// (over code, scope, component and dry_run), keeping resource requests
// (a non-resource request, /healthz or /metrics, has no resource label) with a non-zero count.
// A value that is not a count (snapshot.CountOf), a sum that overflows or a start time that is
// not a time refuses the server's counters: Error names the series and the value, and no count
// is kept.
func requestCounts(m apimetrics.Sample) *snapshot.RequestCounts {
	rc := &snapshot.RequestCounts{}
	for _, v := range m[mvp.ProcessStartTimeMetric] {
		if v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) || v > 1<<40 {
			rc.Refuse(fmt.Errorf("%s %v is not a time: the counters cover no known span", mvp.ProcessStartTimeMetric, v))
			return rc
		}
		sec, frac := math.Modf(v)
		t := time.Unix(int64(sec), int64(frac*1e9)).UTC()
		rc.StartedAt = &t
	}
	sums := map[snapshot.RequestCount]int64{}
	for k, v := range m[mvp.RequestTotalMetric] {
		l := apimetrics.ParseLabelKey(k)
		if l["resource"] == "" || l["version"] == "" {
			continue
		}
		n, err := snapshot.CountOf(v)
		if err != nil {
			rc.Refuse(fmt.Errorf("%s{%s}: %w", mvp.RequestTotalMetric, k, err))
			return rc
		}
		key := snapshot.RequestCount{Group: l["group"], Version: l["version"], Resource: l["resource"], Subresource: l["subresource"], Verb: l["verb"]}
		sum, ok := snapshot.AddCounts(sums[key], n)
		if !ok {
			rc.Refuse(fmt.Errorf("%s of %s %s: the sum of its series overflows: not a count", mvp.RequestTotalMetric, key.Verb, key.GVR()))
			return rc
		}
		sums[key] = sum
	}
	for key, n := range sums {
		if n < 1 {
			continue
		}
		key.Count = n
		rc.Counts = append(rc.Counts, key)
	}
	sort.Slice(rc.Counts, func(i, j int) bool { return countKey(rc.Counts[i]) < countKey(rc.Counts[j]) })
	return rc
}

func countKey(c snapshot.RequestCount) string {
	return c.Group + "/" + c.Version + "/" + c.Resource + "/" + c.Subresource + "/" + c.Verb + "/" + strconv.FormatInt(c.Count, 10)
}
