package snapshot

import (
	"math"
	"strings"
	"testing"
)

func TestCountOf(t *testing.T) {
	tests := []struct {
		v       float64
		want    int64
		wantErr string
	}{
		{0, 0, ""},
		{30, 30, ""},
		{2.7, 2, ""},
		{9.2e18, 9200000000000000000, ""},
		{math.NaN(), 0, "NaN is not a count"},
		{math.Inf(1), 0, "+Inf is not a count"},
		{math.Inf(-1), 0, "-Inf is not a count"},
		{-1, 0, "-1 is negative"},
		{1e30, 0, "1e+30 is past the largest count"},
		{9.3e18, 0, "past the largest count"},
	}
	for _, tc := range tests {
		got, err := CountOf(tc.v)
		if tc.wantErr == "" {
			if err != nil || got != tc.want {
				t.Errorf("CountOf(%v) = %d, %v; want %d", tc.v, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("CountOf(%v) = %d, %v; want an error saying %q", tc.v, got, err, tc.wantErr)
		}
	}
}

func TestAddCounts(t *testing.T) {
	if n, ok := AddCounts(2, 3); !ok || n != 5 {
		t.Errorf("2+3 = %d, %v", n, ok)
	}
	if _, ok := AddCounts(math.MaxInt64, 1); ok {
		t.Error("MaxInt64+1 taken")
	}
	if _, ok := AddCounts(-1, 3); ok {
		t.Error("a negative addend taken")
	}
}
