package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/pkg/discover"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/watch"
)

// leaseDebounce is how long after an identity-lease change the watch reads the plane: a
// restart deletes and creates a lease within moments, and one read should see both.
const leaseDebounce = 150 * time.Millisecond

// startLeaseWatch follows the identity leases through cfg's server until ctx ends, and
// delivers the latest set of leases (a set that was not taken yet is replaced by a newer
// one: each is whole). A failure is said once, until the watch works again. m, when set (the
// exporter), counts the failures and when the watch last heard from the server.
func startLeaseWatch(ctx context.Context, cfg *rest.Config, errOut io.Writer, interval time.Duration, m *watch.LeaseWatchMetrics) <-chan []watch.Lease {
	ch := make(chan []watch.Lease, 1)
	var mu sync.Mutex
	said := false
	w := &discover.LeaseWatch{
		Config: cfg,
		OnLeases: func(set []discover.IdentityLease) {
			if m != nil {
				m.Heard(time.Now())
			}
			leases := make([]watch.Lease, 0, len(set))
			for _, l := range set {
				leases = append(leases, watch.Lease{Name: l.Name, Hostname: l.Hostname, Address: l.Address, Holder: l.Holder, Renew: l.Renew, Duration: l.Duration})
			}
			select {
			case ch <- leases:
			default:
				select {
				case <-ch:
				default:
				}
				ch <- leases
			}
		},
		OnFailure: func(err error, _ time.Duration) {
			if m != nil {
				m.Failed()
			}
			mu.Lock()
			defer mu.Unlock()
			if !said {
				said = true
				output.Fprintf(errOut, "warning: cannot watch the identity leases in kube-system (%s): re-reading every %s only, and trying again\n", err, interval)
			}
		},
		OnRecovered: func() {
			mu.Lock()
			defer mu.Unlock()
			if said {
				said = false
				fmt.Fprintln(errOut, "[watch] watching the identity leases again")
			}
		},
	}
	if m != nil {
		w.OnEstablished = func() { m.Heard(time.Now()) }
	}
	go w.Run(ctx)
	return ch
}
