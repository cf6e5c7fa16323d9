package mvp

import "testing"

func TestStatusOf(t *testing.T) {
	for key, want := range map[string]int{
		OutcomeKey(NotFound, ""):                    404,
		OutcomeKey(Unavailable, EndpointResolution): 503,
		OutcomeKey(Unavailable, Transport):          503,
		OutcomeKey(Unavailable, ""):                 503,
		OutcomeKey(Local, ""):                       0,
		OutcomeKey(Proxied, ""):                     0,
		"unavailable-ish":                           0,
	} {
		if got := StatusOf(key); got != want {
			t.Errorf("StatusOf(%q) = %d, want %d", key, got, want)
		}
	}
}
