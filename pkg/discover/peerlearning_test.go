package discover

import (
	"context"
	"net"
	"testing"
)

func TestParseTypeSample(t *testing.T) {
	for _, tc := range []struct {
		in    string
		typ   string
		value float64
		ok    bool
	}{
		{`{type="fetch_discovery"} 3`, "fetch_discovery", 3, true},
		{`{type="hostport_resolution",zone="x"} 1e+00`, "hostport_resolution", 1, true},
		{`{zone="x"} 1`, "", 0, false},
		{`{type="lease_list"}`, "", 0, false},
		{`{type="lease_list"} NaNish`, "", 0, false},
		{`type="lease_list" 1`, "", 0, false},
	} {
		typ, v, ok := parseTypeSample(tc.in)
		if typ != tc.typ || v != tc.value || ok != tc.ok {
			t.Errorf("%q: %q %v %v, want %q %v %v", tc.in, typ, v, ok, tc.typ, tc.value, tc.ok)
		}
	}
}

func TestDialAdvertised(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	open := l.Addr().String()
	if ok, why := dialAdvertised(context.Background(), open); !ok {
		t.Errorf("listening address: %s", why)
	}
	l.Close()
	if ok, why := dialAdvertised(context.Background(), open); ok || why == "" {
		t.Errorf("closed address accepted a connection (%q)", why)
	}
}
