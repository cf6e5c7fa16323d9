package discover

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Evidence of what a server can learn from its peers (docs/behaviour.md §4.2): its own peer
// discovery sync error counters, and whether the peer address it publishes accepts connections.

// syncErrorsMetric is the counter a 1.36+ server keeps of failed peer-discovery syncs, by type.
const syncErrorsMetric = mvp.PeerDiscoverySyncErrorsMetric

// dialAdvertised says whether the address a server publishes for its peers accepts a TCP
// connection from here. It proves less than a peer's fetch would (mvpctl is not on the peer's
// network path), so it is evidence, not a verdict.
func dialAdvertised(ctx context.Context, address string) (bool, string) {
	d := net.Dialer{Timeout: 2 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", address)
	if err != nil {
		return false, apiclient.OneLine(err.Error())
	}
	conn.Close()
	return true, ""
}

// peerLearningEvidence fills the evidence fields of pp from what fetchServer read.
func peerLearningEvidence(pp *snapshot.PeerProxy, r *result, note func(string, ...any)) {
	if r.syncErrors != nil {
		pp.PeerDiscoverySyncErrors = r.syncErrors
		var parts []string
		for _, typ := range []string{mvp.SyncErrorFetch, mvp.SyncErrorHostPort, mvp.SyncErrorLeaseList} {
			parts = append(parts, fmt.Sprintf("%s=%g", typ, r.syncErrors[typ]))
		}
		note("%s: %s", syncErrorsMetric, strings.Join(parts, ", "))
	} else if r.syncErrorsErr != "" {
		note("%s not read: %s", syncErrorsMetric, r.syncErrorsErr)
	}
	if r.advertiseReachable != nil {
		pp.AdvertiseAddressReachable = r.advertiseReachable
		if *r.advertiseReachable {
			note("its published peer address accepts connections from mvpctl")
		} else {
			note("its published peer address does not accept connections from mvpctl (%s): peers may not reach it either", r.advertiseErr)
		}
	}
}
