// Package parallel runs independent pieces of work on every CPU. Results are written by index,
// so what callers build does not depend on scheduling.
package parallel

import (
	"runtime"
	"sync"
)

// Chunks calls fn on contiguous chunks that together cover [0, n), at most one per CPU and
// none smaller than minChunk (below it, splitting costs more than it saves), and returns when
// all are done. fn must write only to the indexes of its own chunk, and what it reads must not
// change meanwhile.
func Chunks(n, minChunk int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), (n+minChunk-1)/max(minChunk, 1))
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

// Each calls fn(i) for every i in [0, n), on as many goroutines as there are CPUs (each takes
// the next index when done with one: for few, uneven pieces such as one per apiserver), and
// returns when all are done. The same rules as for Chunks apply to fn.
func Each(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	wg.Wait()
}
