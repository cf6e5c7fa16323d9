package replay

import (
	"fmt"
	"strings"
	"time"
)

// GVOf is the group/version of a GVR string: "batch/v1" of batch/v1/jobs, "v1" of v1/pods.
func GVOf(gvr string) string {
	if i := strings.LastIndex(gvr, "/"); i >= 0 {
		return gvr[:i]
	}
	return gvr
}

// Short says how many requests were replayed over what span: "48 replayed requests (over
// 3m12s)".
func (t *Report) Short() string {
	if t.From == nil || t.To == nil {
		return fmt.Sprintf("%d replayed requests (a request list: no times)", t.Requests)
	}
	return fmt.Sprintf("%d replayed requests (over %s)", t.Requests, t.To.Sub(*t.From).Round(time.Second))
}

// Read says how much traffic was read and over what span: what "no client" rests on.
func (t *Report) Read() string {
	s := fmt.Sprintf("%d request(s)", t.Requests)
	if t.From == nil || t.To == nil {
		return s + ", over no known span (a request list has no times)"
	}
	return fmt.Sprintf("%s received %s to %s (%s)", s, t.From.UTC().Format(time.RFC3339), t.To.UTC().Format(time.RFC3339), t.To.Sub(*t.From).Round(time.Second))
}
