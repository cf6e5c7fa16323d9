package route

import (
	"runtime"
	"sync"
)

// minChunk is the fewest items a goroutine is given: below it, splitting costs more than it saves.
const minChunk = 256

// forEachChunk calls fn on contiguous chunks that together cover [0, n), on every CPU at once,
// and returns when all are done. fn must write only to the indexes of its own chunk; what it
// reads must not change meanwhile (the router is read-only once built). Results land at their
// indexes, so the output order does not depend on scheduling.
func forEachChunk(n int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), (n+minChunk-1)/minChunk)
	if workers <= 1 {
		fn(0, n)
		return
	}
	size := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += size {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, min(lo+size, n))
	}
	wg.Wait()
}
