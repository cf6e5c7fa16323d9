package mvp

import "testing"

func TestAnswer(t *testing.T) {
	for _, tc := range []struct {
		a      Answer
		key    string
		status int
	}{
		{Answer{Outcome: NotFound}, "not-found", 404},
		{Answer{Outcome: Unavailable, Unavailable: EndpointResolution}, "unavailable/endpoint-resolution", 503},
		{Answer{Outcome: Unavailable, Unavailable: Transport}, "unavailable/transport", 503},
		{Answer{Outcome: Unavailable}, "unavailable", 503},
		{Answer{Outcome: Local}, "local", 0},
		{Answer{Outcome: Proxied}, "proxied", 0},
	} {
		if got := tc.a.Key(); got != tc.key {
			t.Errorf("%+v.Key() = %q, want %q", tc.a, got, tc.key)
		}
		if got := tc.a.Status(); got != tc.status {
			t.Errorf("%+v.Status() = %d, want %d", tc.a, got, tc.status)
		}
	}
}
