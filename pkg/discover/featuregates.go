package discover

import (
	"context"
	"sort"
	"time"

	"github.com/mvpctl/mvpctl/internal/apimetrics"
	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// FeatureGate is one feature gate as a server's /metrics reports it (mvp.FeatureEnabledMetric).
type FeatureGate struct {
	Name string
	// Stage is ALPHA, BETA, DEPRECATED, or empty for GA.
	Stage   string
	Enabled bool
}

// readFeatureGates reads the feature gates of a server discovery reached, for
// Options.FeatureGates. It is not part of a snapshot: only a version profile's recording
// (`mvpctl profiles record`) asks for it, to tell whether a server runs with its defaults.
func readFeatureGates(ctx context.Context, r *result, timeout time.Duration, report func(endpoint string, gates []FeatureGate, err string)) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	m, err := apimetrics.Fetch(ctx, r.client.Client, mvp.FeatureEnabledMetric)
	if err != nil {
		report(r.t.base, nil, errMsg(err))
		return
	}
	var gates []FeatureGate
	for k, v := range m[mvp.FeatureEnabledMetric] {
		l := apimetrics.ParseLabelKey(k)
		gates = append(gates, FeatureGate{Name: l["name"], Stage: l["stage"], Enabled: v != 0})
	}
	if len(gates) == 0 {
		report(r.t.base, nil, "GET /metrics: no "+mvp.FeatureEnabledMetric+" series (a kube-apiserver older than 1.26?)")
		return
	}
	sort.Slice(gates, func(i, j int) bool { return gates[i].Name < gates[j].Name })
	report(r.t.base, gates, "")
}
