// Package gcpolicy sets when mvpctl's garbage collector starts working.
//
// Most mvpctl runs are short and small: `routes --snapshot` on a 200 KB file allocates a few
// megabytes and exits within milliseconds. Go's collector starts its first cycle when the heap
// reaches 4 MB, so such a run paid for one collection (marking, sweeping, write barriers, and
// the page faults of the spans it recycles) that freed nothing the process needed: 2.5 ms of a
// 12 ms run of the README's example (docs/performance.md). Large runs (a 72 MB snapshot, a
// 1 GB audit log, a watch that runs for hours) need the collector's usual pacing.
package gcpolicy

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
)

// DeferFirstCollection turns the collector off until the heap first reaches firstAt bytes,
// and then back to Go's defaults (GOGC=100, no memory limit) for the rest of the run: a small
// run never collects, a large one collects as it always did, starting a little later. The
// memory limit makes the runtime start a cycle at firstAt; that cycle finds a sentinel object
// unreachable, and the sentinel's cleanup restores the defaults. It does nothing when the user
// set GOGC or GOMEMLIMIT (their choice stands), and reports whether it changed anything.
func DeferFirstCollection(firstAt int64) bool {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(firstAt)
	sentinel := new([16]byte) // not tiny-allocated: the cleanup must run when it alone is unreachable
	runtime.AddCleanup(sentinel, func(struct{}) { restoreDefaults() }, struct{}{})
	return true
}

// restoreDefaults is Go's collector setting when neither GOGC nor GOMEMLIMIT is set.
func restoreDefaults() {
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
}
