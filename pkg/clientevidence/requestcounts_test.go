package clientevidence

import (
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/internal/apimetrics"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestRequestCounts(t *testing.T) {
	started := time.Unix(1790000000, 500000000).UTC()
	tests := []struct {
		name, text  string
		wantStarted *time.Time
		want        []snapshot.RequestCount
		wantErr     string // the refusal's words: no count kept
	}{
		{"summed over code, scope, component and dry_run; non-resource requests left out", `# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="networking.k8s.io",resource="ipaddresses",scope="cluster",subresource="",verb="LIST",version="v1beta1"} 3
apiserver_request_total{code="404",component="apiserver",dry_run="",group="networking.k8s.io",resource="ipaddresses",scope="resource",subresource="",verb="LIST",version="v1beta1"} 2
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="status",verb="PATCH",version="v1"} 7
apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="/healthz",verb="GET",version=""} 40
apiserver_request_total{code="200",component="apiserver",dry_run="",group="apps",resource="deployments",scope="cluster",subresource="",verb="WATCH",version="v1"} 0
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.7900000005e+09
`, &started, []snapshot.RequestCount{
			{Group: "", Version: "v1", Resource: "pods", Subresource: "status", Verb: "PATCH", Count: 7},
			{Group: "networking.k8s.io", Version: "v1beta1", Resource: "ipaddresses", Verb: "LIST", Count: 5},
		}, ""},
		{"no start time, no requests", "# TYPE apiserver_request_total counter\n", nil, nil, ""},
		{"NaN refused", series("NaN"), &started, nil, "NaN is not a count"},
		{"+Inf refused", series("+Inf"), &started, nil, "+Inf is not a count"},
		{"-Inf refused", series("-Inf"), &started, nil, "-Inf is not a count"},
		{"negative refused", series("-5"), &started, nil, "-5 is negative"},
		{"past int64 refused", series("1e30"), &started, nil, "1e+30 is past the largest count"},
		{"a sum that overflows refused", series("9e18") + `apiserver_request_total{code="404",group="storage.k8s.io",resource="volumeattributesclasses",subresource="",verb="LIST",version="v1beta1"} 9e18
`, &started, nil, "the sum of its series overflows"},
		{"a start time that is not a time refused", "# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds NaN\n", nil, nil, "process_start_time_seconds NaN is not a time"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := apimetrics.Parse(strings.NewReader(tc.text), mvp.RequestTotalMetric, mvp.ProcessStartTimeMetric)
			if err != nil {
				t.Fatal(err)
			}
			got := RequestCounts(m)
			if tc.wantErr != "" {
				if !strings.Contains(got.Error, tc.wantErr) || len(got.Counts) != 0 {
					t.Fatalf("Error %q with %d count(s), want it to say %q and no count", got.Error, len(got.Counts), tc.wantErr)
				}
				return
			}
			if got.Error != "" {
				t.Fatalf("refused: %s", got.Error)
			}
			if (got.StartedAt == nil) != (tc.wantStarted == nil) || (got.StartedAt != nil && got.StartedAt.Sub(*tc.wantStarted).Abs() > time.Millisecond) {
				t.Errorf("StartedAt %v, want %v", got.StartedAt, tc.wantStarted)
			}
			if len(got.Counts) != len(tc.want) {
				t.Fatalf("counts %+v, want %+v", got.Counts, tc.want)
			}
			for i := range tc.want {
				if got.Counts[i] != tc.want[i] {
					t.Errorf("count %d: %+v, want %+v", i, got.Counts[i], tc.want[i])
				}
			}
		})
	}
}

// series is a /metrics text with one LIST of storage.k8s.io/v1beta1 volumeattributesclasses
// of value v, and a start time.
func series(v string) string {
	return `# TYPE apiserver_request_total counter
apiserver_request_total{code="200",group="storage.k8s.io",resource="volumeattributesclasses",subresource="",verb="LIST",version="v1beta1"} ` + v + `
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.7900000005e+09
`
}
