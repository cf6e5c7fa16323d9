package preflight

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/basis"
	"github.com/mvpctl/mvpctl/pkg/report"
)

func TestDecide(t *testing.T) {
	assumed := basis.RestsOn{Assumptions: []string{"a: the gate is assumed off"}}
	partial := basis.RestsOn{Reads: basis.Reads{Unread: []string{"c"}, Servers: 3}}
	partialAssumed := partial
	partialAssumed.Assumptions = assumed.Assumptions
	tests := []struct {
		name   string
		in     VerdictInput
		result Result
		// exit at warning, blocking, never
		exit [3]report.Class
		says string
	}{
		{"nothing", VerdictInput{}, ResultPass, [3]report.Class{report.OK, report.OK, report.OK}, "no finding"},
		{"warnings", VerdictInput{Warning: 2}, ResultWarning, [3]report.Class{report.Warnings, report.OK, report.OK}, "0 blocking, 2 warning"},
		{"assumption only", VerdictInput{RestsOn: assumed}, ResultWarning, [3]report.Class{report.Warnings, report.OK, report.OK}, "rests on 1 assumption(s)"},
		{"provisional only", VerdictInput{RestsOn: basis.RestsOn{Provisional: []basis.Provisional{{Version: "v1.38.0"}}}}, ResultWarning, [3]report.Class{report.Warnings, report.OK, report.OK}, "provisional profile v1.38.0"},
		{"partial read", VerdictInput{RestsOn: partial}, ResultPartial, [3]report.Class{report.Partial, report.Partial, report.OK}, "not read: c could not be read"},
		{"partial read and warnings", VerdictInput{Warning: 1, RestsOn: partialAssumed}, ResultPartial, [3]report.Class{report.Partial, report.Partial, report.OK}, "not read"},
		{"blocking", VerdictInput{Blocking: 1, Warning: 1}, ResultBlocking, [3]report.Class{report.Blocking, report.Blocking, report.OK}, "1 blocking, 1 warning"},
		{"blocking wins over a partial read", VerdictInput{Blocking: 1, RestsOn: partial}, ResultBlocking, [3]report.Class{report.Blocking, report.Blocking, report.OK}, "not read"},
	}
	for _, tt := range tests {
		for i, failOn := range FailOnValues {
			t.Run(tt.name+"/"+string(failOn), func(t *testing.T) {
				in := tt.in
				in.FailOn = failOn
				v := Decide(in)
				if v.Result != tt.result || v.Exit != tt.exit[i] || v.FailOn != failOn {
					t.Errorf("got result %s exit %s, want %s %s", v.Result, v.Exit, tt.result, tt.exit[i])
				}
				if !strings.Contains(v.Reason, tt.says) {
					t.Errorf("reason %q lacks %q", v.Reason, tt.says)
				}
				if v.Fails() != (v.Exit != report.OK) {
					t.Errorf("Fails %t with exit %s", v.Fails(), v.Exit)
				}
				if v.Exit == report.OK && v.Result != ResultPass && failOn != FailOnNever && !strings.Contains(v.Reason, "lets it pass") {
					t.Errorf("a %s that passes must say why: %q", v.Result, v.Reason)
				}
			})
		}
	}
	if v := Decide(VerdictInput{Warning: 1}); v.FailOn != FailOnWarning || v.Exit != report.Warnings {
		t.Errorf("no threshold: %+v, want --fail-on warning", v)
	}
}

func TestVerdictFailsOn(t *testing.T) {
	for _, tt := range []struct {
		failOn FailOn
		want   map[Severity]bool
	}{
		{FailOnWarning, map[Severity]bool{Blocking: true, Warning: true, Info: false}},
		{FailOnBlocking, map[Severity]bool{Blocking: true, Warning: false, Info: false}},
		{FailOnNever, map[Severity]bool{Blocking: false, Warning: false, Info: false}},
	} {
		v := Decide(VerdictInput{FailOn: tt.failOn})
		for sev, want := range tt.want {
			if got := v.FailsOn(sev); got != want {
				t.Errorf("--fail-on %s, %s: %t, want %t", tt.failOn, sev, got, want)
			}
		}
	}
}

// TestVerdictJSON pins the verdict's document: the exit class by its report name (pass,
// incomplete, blocking), the provisional profiles by version, what was not read as lines; and
// that it reads back to the same verdict.
func TestVerdictJSON(t *testing.T) {
	rests := basis.RestsOn{Provisional: []basis.Provisional{{Version: "v1.38.0"}}, Assumptions: []string{"a <x> & y"},
		Reads: basis.Reads{Unread: []string{"c"}, Servers: 3}}
	for _, tt := range []struct {
		in   VerdictInput
		want string
	}{
		{VerdictInput{}, `{"result":"pass","failOn":"warning","exit":"pass","blocking":0,"warning":0,"reason":"no finding at warning or above; nothing assumed, every apiserver read"}`},
		{VerdictInput{Warning: 1, FailOn: FailOnWarning, RestsOn: basis.RestsOn{Assumptions: rests.Assumptions}},
			`{"result":"warning","failOn":"warning","exit":"incomplete","blocking":0,"warning":1,"assumptions":["a <x> & y"],"reason":"0 blocking, 1 warning finding(s); rests on 1 assumption(s) (the ASSUMED lines)"}`},
		{VerdictInput{Blocking: 1, FailOn: FailOnBlocking, RestsOn: rests},
			`{"result":"blocking","failOn":"blocking","exit":"blocking","blocking":1,"warning":0,"assumptions":["a <x> & y"],"provisional":["v1.38.0"],"partial":["c could not be read"],"reason":"1 blocking, 0 warning finding(s); not read: c could not be read; rests on the provisional profile v1.38.0 (the PROVISIONAL lines); rests on 1 assumption(s) (the ASSUMED lines)"}`},
		{VerdictInput{RestsOn: rests}, `{"result":"partial","failOn":"warning","exit":"incomplete","blocking":0,"warning":0,"assumptions":["a <x> & y"],"provisional":["v1.38.0"],"partial":["c could not be read"],"reason":"0 blocking, 0 warning finding(s); not read: c could not be read; rests on the provisional profile v1.38.0 (the PROVISIONAL lines); rests on 1 assumption(s) (the ASSUMED lines)"}`},
	} {
		v := Decide(tt.in)
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(b.String()); got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
		var back Verdict
		if err := json.Unmarshal([]byte(tt.want), &back); err != nil {
			t.Fatal(err)
		}
		if back.Exit != v.Exit || back.Result != v.Result || strings.Join(back.Partial(), ";") != strings.Join(v.Partial(), ";") || len(back.RestsOn.Provisional) != len(v.RestsOn.Provisional) {
			t.Errorf("read back %+v, want %+v", back, v)
		}
	}
}
