package parallel

import (
	"runtime"
	"sync/atomic"
	"testing"
)

func TestChunksAndEachCoverEveryIndexOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, n := range []int{0, 1, 5, 255, 256, 257, 1000, 4097} {
		seen := make([]int32, n)
		Chunks(n, 256, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				atomic.AddInt32(&seen[i], 1)
			}
		})
		Each(n, func(i int) { atomic.AddInt32(&seen[i], 1) })
		for i, c := range seen {
			if c != 2 {
				t.Fatalf("n=%d: index %d visited %d times, want once by each", n, i, c)
			}
		}
	}
}
