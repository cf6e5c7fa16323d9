package report

import "testing"

type because string

func (b because) String() string { return string(b) }

func TestResult(t *testing.T) {
	for r, want := range map[Result]string{
		Done():                                 "ok",
		Of(Partial, because("b was not read")): "partial: b was not read",
		Of(Warnings, because("assumed")):       "warnings: assumed",
		Of(Blocking, because("a 404")):         "blocking: a 404",
		Of(Usage, because("nothing read")):     "usage: nothing read",
		{Class: Class(42)}:                     "unknown",
	} {
		if got := r.String(); got != want {
			t.Errorf("%#v = %q, want %q", r, got, want)
		}
		if r.OK() != (want == "ok") {
			t.Errorf("%q: OK() = %v", want, r.OK())
		}
	}
}
