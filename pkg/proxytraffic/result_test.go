package proxytraffic

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/report"
)

func TestReportResult(t *testing.T) {
	tests := []struct {
		name  string
		rep   Report
		class report.Class
		why   string
	}{
		{"no server", Report{}, report.Usage, "no apiserver's counters could be read"},
		{"none read", Report{Servers: []Server{{Name: "a", Note: "403"}, {Name: "b"}}}, report.Usage, "no apiserver's counters could be read (a: 403)"},
		{"one unread", Report{Servers: []Server{{Name: "a", Read: true}, {Name: "b"}}, Interrupted: "cut"}, report.Partial, "the counters of b could not be read"},
		{"cut short", Report{Servers: []Server{{Name: "a", Read: true}}, Interrupted: "cut"}, report.Partial, "cut"},
		{"whole", Report{Servers: []Server{{Name: "a", Read: true}}}, report.OK, ""},
	}
	for _, tt := range tests {
		r := tt.rep.Result()
		if r.Class != tt.class || (r.Reason != nil && r.Reason.String() != tt.why) {
			t.Errorf("%s: %v %v, want %v %q", tt.name, r.Class, r.Reason, tt.class, tt.why)
		}
	}
}
