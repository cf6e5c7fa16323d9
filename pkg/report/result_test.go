package report

import "testing"

type because string

func (b because) String() string { return string(b) }

func TestResult(t *testing.T) {
	tests := []struct {
		r      Result
		ok     bool
		class  string
		reason string
	}{
		{Done(), true, "ok", ""},
		{Of(Partial, because("a could not be read")), false, "partial", "a could not be read"},
		{Of(Warnings, because("assumed")), false, "warnings", "assumed"},
		{Of(Blocking, because("a 404")), false, "blocking", "a 404"},
		{Of(Usage, because("nothing read")), false, "usage", "nothing read"},
		{Result{Class: Class(42)}, false, "unknown", ""},
	}
	for _, tt := range tests {
		if got := tt.r.OK(); got != tt.ok {
			t.Errorf("%v.OK() = %v, want %v", tt.r, got, tt.ok)
		}
		if got := tt.r.Class.String(); got != tt.class {
			t.Errorf("Class.String() = %q, want %q", got, tt.class)
		}
		if tt.r.Reason != nil && tt.r.Reason.String() != tt.reason {
			t.Errorf("Reason = %q, want %q", tt.r.Reason, tt.reason)
		}
	}
}
