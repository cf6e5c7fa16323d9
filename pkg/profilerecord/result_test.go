package profilerecord

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/report"
)

func TestReportResult(t *testing.T) {
	if r := (Report{}).Result(); !r.OK() {
		t.Errorf("a clean recording: %v %v, want ok", r.Class, r.Reason)
	}
	r := Report{NotCaptured: []string{"x"}, NotDefault: []string{"y", "z"}}.Result()
	if want := "1 not captured, 2 signs of a configuration other than the defaults (above)"; r.Class != report.Warnings || r.Reason.String() != want {
		t.Errorf("caveats: %v %v, want warnings %q", r.Class, r.Reason, want)
	}
}
