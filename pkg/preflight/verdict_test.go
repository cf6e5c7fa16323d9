package preflight

import (
	"strings"
	"testing"
)

func TestDecide(t *testing.T) {
	assumed := []string{"a: the gate is assumed off"}
	partial := []string{"c could not be read"}
	tests := []struct {
		name   string
		in     VerdictInput
		result Result
		// exit at warning, blocking, never
		exit [3]ExitClass
		says string
	}{
		{"nothing", VerdictInput{}, ResultPass, [3]ExitClass{ExitPass, ExitPass, ExitPass}, "no finding"},
		{"warnings", VerdictInput{Warning: 2}, ResultWarning, [3]ExitClass{ExitIncomplete, ExitPass, ExitPass}, "0 blocking, 2 warning"},
		{"assumption only", VerdictInput{Assumptions: assumed}, ResultWarning, [3]ExitClass{ExitIncomplete, ExitPass, ExitPass}, "rests on 1 assumption(s)"},
		{"provisional only", VerdictInput{Provisional: []string{"v1.38.0"}}, ResultWarning, [3]ExitClass{ExitIncomplete, ExitPass, ExitPass}, "provisional profile v1.38.0"},
		{"partial read", VerdictInput{Partial: partial}, ResultPartial, [3]ExitClass{ExitIncomplete, ExitIncomplete, ExitPass}, "not read: c could not be read"},
		{"partial read and warnings", VerdictInput{Warning: 1, Partial: partial, Assumptions: assumed}, ResultPartial, [3]ExitClass{ExitIncomplete, ExitIncomplete, ExitPass}, "not read"},
		{"blocking", VerdictInput{Blocking: 1, Warning: 1}, ResultBlocking, [3]ExitClass{ExitBlocking, ExitBlocking, ExitPass}, "1 blocking, 1 warning"},
		{"blocking wins over a partial read", VerdictInput{Blocking: 1, Partial: partial}, ResultBlocking, [3]ExitClass{ExitBlocking, ExitBlocking, ExitPass}, "not read"},
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
				if v.Fails() != (v.Exit != ExitPass) {
					t.Errorf("Fails %t with exit %s", v.Fails(), v.Exit)
				}
				if v.Exit == ExitPass && v.Result != ResultPass && failOn != FailOnNever && !strings.Contains(v.Reason, "lets it pass") {
					t.Errorf("a %s that passes must say why: %q", v.Result, v.Reason)
				}
			})
		}
	}
	if v := Decide(VerdictInput{Warning: 1}); v.FailOn != FailOnWarning || v.Exit != ExitIncomplete {
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
