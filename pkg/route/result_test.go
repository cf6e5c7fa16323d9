package route

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestExplanationResult(t *testing.T) {
	s404 := 404
	e := Explanation{Servers: []Decision{
		{Server: "a", Outcome: mvp.NotFound, Status: &s404},
		{Server: "b", Outcome: mvp.Proxied, AlsoPossible: []string{"unavailable/transport"}, AlsoAnswers: []mvp.Answer{{Outcome: mvp.Unavailable, Unavailable: mvp.Transport}}},
	}}
	partial := snapshot.New()
	partial.Servers = []snapshot.Server{{Name: "a", Reachable: true}, {Name: "c"}}
	tests := []struct {
		name      string
		failOn    []int
		oneServer bool
		class     report.Class
		why       string
	}{
		{"404 and 503", []int{404, 503}, false, report.Blocking, "a answers 404; b may answer 503 (unavailable/transport) (--fail-on 404,503)"},
		{"503 only", []int{503}, true, report.Blocking, "b may answer 503 (unavailable/transport) (--fail-on 503)"},
		{"none asked: the snapshot's result", nil, false, report.Partial, "c could not be read when the snapshot was taken"},
		{"none asked, one server", nil, true, report.OK, ""},
	}
	for _, tt := range tests {
		r := e.Result(tt.failOn, partial, tt.oneServer)
		if r.Class != tt.class || (r.Reason != nil && r.Reason.String() != tt.why) {
			t.Errorf("%s: %v %v, want %v %q", tt.name, r.Class, r.Reason, tt.class, tt.why)
		}
	}
}
