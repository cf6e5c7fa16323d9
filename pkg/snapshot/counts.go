package snapshot

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// A request count is a non-negative integer: a value read from /metrics, a file or Prometheus
// that is not one (NaN, ±Inf, negative, past int64, a sum that overflows) says nothing about
// clients, and the source it came from is refused rather than read as a count.

// maxCount is the largest count taken: 2^63 − 1024, the largest float64 below 2^63, so that a
// value converts to int64 without wrapping.
const maxCount = 1<<63 - 1024

// CountOf is a sample value as a request count: a whole number from 0 to maxCount (a fraction
// of a request, from a rate, is rounded down). Any other value is an error naming it.
func CountOf(v float64) (int64, error) {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("%v is not a count", v)
	case v < 0:
		return 0, fmt.Errorf("%s is negative: not a count", strconv.FormatFloat(v, 'g', -1, 64))
	case v > maxCount:
		return 0, fmt.Errorf("%s is past the largest count (%d)", strconv.FormatFloat(v, 'g', -1, 64), int64(maxCount))
	}
	return int64(v), nil
}

// AddCounts is a + b, or false when the sum of two counts would overflow.
func AddCounts(a, b int64) (int64, bool) {
	if a < 0 || b < 0 || a > math.MaxInt64-b {
		return 0, false
	}
	return a + b, true
}

// Check says why r's counts cannot be evidence, nil when they can: a count below zero, or a
// process start after the read (the server's clock ahead of the reader's, or a value made up),
// which would make the span negative.
func (r *RequestCounts) Check() error {
	if r == nil || r.Error != "" {
		return nil
	}
	if r.StartedAt != nil && r.StartedAt.After(r.ReadAt) {
		return fmt.Errorf("process start %s is %s after the read at %s (a clock ahead?): the counters cover no known span",
			r.StartedAt.UTC().Format(time.RFC3339), r.StartedAt.Sub(r.ReadAt).Round(time.Second), r.ReadAt.UTC().Format(time.RFC3339))
	}
	for _, c := range r.Counts {
		if c.Count < 0 {
			return fmt.Errorf("count %d of %s %s is negative: not a count", c.Count, c.Verb, c.GVR())
		}
	}
	return nil
}

// Refuse marks r as not read, for the reason err: its counts are dropped, so that nothing
// reads them as evidence.
func (r *RequestCounts) Refuse(err error) {
	r.Error = err.Error()
	r.Counts = nil
}
