package watch

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestLoopLeaseChangeWhileReadsBackToBack: a read that takes longer than the interval is
// followed at once by the next (a busy machine, many servers). The lease changes that arrive
// meanwhile are still taken between two reads, and emitted then: the watch is not blind to
// them for as long as its reads are slow. No read counts as lease-triggered: each was due on
// the interval before the lease change could ask for one.
func TestLoopLeaseChangeWhileReadsBackToBack(t *testing.T) {
	plane := steadyPlane(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	leases := make(chan []Lease, 1)
	base := []Lease{{Name: "apiserver-x", Hostname: "a", Holder: "x_1"}, {Name: "apiserver-y", Hostname: "b", Holder: "y_1"}}
	leases <- base
	var (
		mu     sync.Mutex
		reads  int
		events []string
	)
	l := &Loop{
		Read: func(context.Context) (*snapshot.Snapshot, error) {
			mu.Lock()
			reads++
			n := reads
			mu.Unlock()
			if n == 3 {
				// a's lease deleted during the third read; the lease watch keeps only the
				// latest whole set (startLeaseWatch), so a set not taken yet is replaced.
				select {
				case <-leases:
				default:
				}
				leases <- base[1:]
			}
			if n == 8 {
				cancel()
			}
			time.Sleep(30 * time.Millisecond) // longer than the interval
			return plane, nil
		},
		Clock: RealClock{}, Interval: 10 * time.Millisecond, Debounce: 5 * time.Millisecond,
		Leases: leases,
		Emit: func(d EventDoc) error {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, string(d.Type)+" "+d.Server)
			return nil
		},
	}
	res, err := l.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := "server-added a, server-added b, lease-gone a"
	if strings.Join(events, ", ") != want {
		t.Errorf("events %q after %d back-to-back reads, want %q: the lease change waited for a pause between reads", strings.Join(events, ", "), reads, want)
	}
	if res.Summary.LeaseTriggeredReads != 0 {
		t.Errorf("%d lease-triggered reads, want 0: every read was due on the interval", res.Summary.LeaseTriggeredReads)
	}
}
