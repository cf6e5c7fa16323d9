package snapshot

import (
	"fmt"
	"testing"
	"time"
)

// TestRequestCountRowsBound: a server's request counts past MaxRequestCountRows are refused
// while the snapshot is decoded, JSON and YAML alike, and by validation for a snapshot held in
// memory; at the bound the snapshot loads.
func TestRequestCountRowsBound(t *testing.T) {
	defer func(n int) { maxRequestCountRows = n }(maxRequestCountRows)
	maxRequestCountRows = 100
	base, err := LoadFile("../../examples/skew.yaml")
	if err != nil {
		t.Fatal(err)
	}
	withRows := func(n int) *Snapshot {
		s := *base
		s.Servers = append([]Server(nil), base.Servers...)
		rc := &RequestCounts{ReadAt: time.Date(2026, 11, 23, 9, 36, 29, 0, time.UTC)}
		for i := range n {
			rc.Counts = append(rc.Counts, RequestCount{Group: "example.com", Version: "v1", Resource: fmt.Sprintf("r%06d", i), Verb: "LIST", Count: 1})
		}
		s.Servers[0].Requests = rc
		return &s
	}
	for _, asJSON := range []bool{true, false} {
		for _, tc := range []struct {
			rows    int
			refused bool
		}{{maxRequestCountRows, false}, {maxRequestCountRows + 1, true}} {
			data, err := withRows(tc.rows).Marshal(asJSON)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Decode(data)
			if IsTooManyRequestCounts(err) != tc.refused || (!tc.refused && err != nil) {
				t.Errorf("JSON %v, %d rows: %v; refused want %v", asJSON, tc.rows, err, tc.refused)
			}
		}
	}
	if err := withRows(maxRequestCountRows + 1).validate(false); !IsTooManyRequestCounts(err) {
		t.Errorf("validate: %v", err)
	}
}
