package proxytraffic

import "testing"

func TestReportResult(t *testing.T) {
	whole := Server{Name: "a", Read: true}
	for want, rep := range map[string]Report{
		"usage: no apiserver's counters could be read":          {},
		"usage: no apiserver's counters could be read (a: 403)": {Servers: []Server{{Name: "a", Note: "403"}, {Name: "b"}}},
		"partial: the counters of b could not be read":          {Servers: []Server{whole, {Name: "b"}}, Interrupted: "cut"},
		"partial: cut": {Servers: []Server{whole}, Interrupted: "cut"},
		"ok":           {Servers: []Server{whole}},
	} {
		if got := rep.Result().String(); got != want {
			t.Errorf("Result() = %q, want %q", got, want)
		}
	}
}
