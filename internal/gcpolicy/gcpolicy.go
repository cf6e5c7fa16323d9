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
	"sync"
)

// deferral is the state of the first collection: deferred from DeferFirstCollection until
// restoreDefaults.
var deferral struct {
	sync.Mutex
	deferred bool
	at       int64 // the heap size at which the first collection runs
}

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
	deferral.Lock()
	defer deferral.Unlock()
	deferral.deferred, deferral.at = true, firstAt
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(firstAt)
	sentinel := new([16]byte) // not tiny-allocated: the cleanup must run when it alone is unreachable
	runtime.AddCleanup(sentinel, func(struct{}) { restoreDefaults() }, struct{}{})
	return true
}

// Expect tells the policy that the command is about to build about n bytes that it keeps
// until it ends, as when it decodes a snapshot: while the first collection is still deferred,
// it moves n bytes later, but not beyond maxAt. A collection during the decoding of a large
// snapshot finds nothing to free (what is decoded stays live; the file's bytes die only when
// decoding ends) and slows the decoding down with its write barriers; a 72 MB snapshot took
// three. Once the first collection has run, Expect does nothing.
func Expect(n, maxAt int64) {
	deferral.Lock()
	defer deferral.Unlock()
	if !deferral.deferred || n <= 0 {
		return
	}
	deferral.at = max(deferral.at, min(deferral.at+n, maxAt))
	debug.SetMemoryLimit(deferral.at)
}

// restoreDefaults is Go's collector setting when neither GOGC nor GOMEMLIMIT is set.
func restoreDefaults() {
	deferral.Lock()
	defer deferral.Unlock()
	deferral.deferred = false
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
}
