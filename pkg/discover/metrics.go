package discover

import (
	"context"
	"errors"

	"github.com/mvpctl/mvpctl/internal/apimetrics"
	"github.com/mvpctl/mvpctl/pkg/clientevidence"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// fetchMetrics reads /metrics once: the request counters always, the sync errors when the
// server's version exports them (withSyncErrors). The counts' ReadAt is set when the snapshot
// is assembled (its TakenAt), so that a snapshot's times come from one clock.
// refused says the counters were read but refused as not counts (clientevidence.RequestCounts).
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
	rc = clientevidence.RequestCounts(m)
	return rc, syncErrors, "", rc.Error != ""
}

// syncErrorsOf sums the peer-discovery sync errors per type.
func syncErrorsOf(m apimetrics.Sample) map[string]float64 {
	byType := m[syncErrorsMetric].SumBy("type")
	delete(byType, "") // a sample without a type says nothing about which sync failed
	return byType
}
