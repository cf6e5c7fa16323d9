package clientevidence

import (
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
// started (mvp.RequestTotalMetric), read by pkg/discover in the same GET /metrics as the
// peer-discovery sync errors.

// RequestCounts sums the request counter by group, version, resource, subresource and verb
// (over code, scope, component and dry_run), keeping resource requests
// (a non-resource request, /healthz or /metrics, has no resource label) with a non-zero count.
// A value that is not a count (snapshot.CountOf), a sum that overflows or a start time that is
// not a time refuses the server's counters: Error names the series and the value, and no count
// is kept.
func RequestCounts(m apimetrics.Sample) *snapshot.RequestCounts {
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
