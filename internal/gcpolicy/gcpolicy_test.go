package gcpolicy

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// settings returns the collector's GC percent and memory limit without changing them.
func settings() (percent int, limit int64) {
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1) // a negative limit only reads it
}

var sink [][]byte

// TestDeferFirstCollection checks the whole cycle: off and limited at first, no collection
// while the heap stays small, Go's defaults again once the heap has reached the limit.
func TestDeferFirstCollection(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer restoreDefaults()
	runtime.GC()
	const firstAt = 64 << 20
	if !DeferFirstCollection(firstAt) {
		t.Fatal("DeferFirstCollection changed nothing with GOGC and GOMEMLIMIT unset")
	}
	if p, l := settings(); p != -1 || l != firstAt {
		t.Fatalf("after DeferFirstCollection: GC percent %d, memory limit %d; want -1, %d", p, l, firstAt)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 8 { // 8 MB: twice the heap at which Go would otherwise start its first cycle
		sink = append(sink, make([]byte, 1<<20))
	}
	runtime.ReadMemStats(&after)
	if after.NumGC != before.NumGC {
		t.Errorf("%d collections while the heap grew by 8 MB, want none", after.NumGC-before.NumGC)
	}
	if p, _ := settings(); p != -1 {
		t.Fatalf("GC percent %d before the heap reached the limit, want -1", p)
	}
	sink = nil
	deadline := time.Now().Add(10 * time.Second)
	for {
		sink = append(sink, make([]byte, 1<<20))
		if len(sink) > 32 {
			sink = sink[:0] // garbage, not live heap: the limit's cycle frees it
		}
		if p, l := settings(); p == 100 && l == math.MaxInt64 {
			break
		}
		if time.Now().After(deadline) {
			p, l := settings()
			t.Fatalf("defaults not restored 10 s after the heap passed the limit: GC percent %d, memory limit %d", p, l)
		}
		if len(sink)%8 == 0 {
			runtime.Gosched() // let the cleanup goroutine run
		}
	}
	sink = nil
}

func TestDeferFirstCollectionLeavesTheUsersSetting(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			t.Setenv(env, "200")
			p0, l0 := settings()
			if DeferFirstCollection(64 << 20) {
				t.Fatalf("DeferFirstCollection changed the collector although %s is set", env)
			}
			if p, l := settings(); p != p0 || l != l0 {
				t.Fatalf("settings changed from %d, %d to %d, %d", p0, l0, p, l)
			}
		})
	}
}

// TestExpect: while the first collection is deferred, Expect moves it later, within its
// bound and never earlier; afterwards, or when the user set GOGC, it changes nothing.
func TestExpect(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer restoreDefaults()
	const mib = 1 << 20
	if !DeferFirstCollection(64 * mib) {
		t.Fatal("DeferFirstCollection changed nothing")
	}
	for _, c := range []struct {
		n, maxAt, want int64
	}{
		{n: 10 * mib, maxAt: 1024 * mib, want: 74 * mib},
		{n: 100 * mib, maxAt: 128 * mib, want: 128 * mib}, // bounded
		{n: 100 * mib, maxAt: 96 * mib, want: 128 * mib},  // never earlier
		{n: -1, maxAt: 1024 * mib, want: 128 * mib},
	} {
		Expect(c.n, c.maxAt)
		if p, l := settings(); p != -1 || l != c.want {
			t.Errorf("Expect(%d, %d): GC percent %d, memory limit %d; want -1, %d", c.n, c.maxAt, p, l, c.want)
		}
	}
	restoreDefaults() // what the first collection does
	Expect(10*mib, 1024*mib)
	if p, l := settings(); p != 100 || l != math.MaxInt64 {
		t.Errorf("Expect after the first collection: GC percent %d, memory limit %d; want Go's defaults", p, l)
	}

	t.Setenv("GOGC", "200")
	debug.SetGCPercent(200)
	if DeferFirstCollection(64 * mib) {
		t.Fatal("DeferFirstCollection changed the collector although GOGC is set")
	}
	Expect(10*mib, 1024*mib)
	if p, l := settings(); p != 200 || l != math.MaxInt64 {
		t.Errorf("Expect with GOGC=200: GC percent %d, memory limit %d; want 200, no limit", p, l)
	}
}
