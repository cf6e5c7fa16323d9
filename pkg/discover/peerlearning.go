package discover

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Evidence of what a server can learn from its peers (docs/behaviour.md §4.2): its own peer
// discovery sync error counters, and whether the peer address it publishes accepts connections.

// syncErrorsMetric is the counter a 1.36+ server keeps of failed peer-discovery syncs, by type.
const syncErrorsMetric = "apiserver_peer_discovery_sync_errors_total"

// maxMetricsLines bounds how much of /metrics is scanned (a server exports tens of thousands of
// lines; the counter is near the top of the apiserver_ block, but the order is not promised).
const maxMetricsLines = 2_000_000

// fetchSyncErrors reads syncErrorsMetric from /metrics, summed per type. ok is false, with the
// reason, when the metrics could not be read (no permission is the common case).
func fetchSyncErrors(ctx context.Context, c *serverClient) (map[string]float64, string) {
	resp, err := c.Open(ctx, "/metrics", "text/plain")
	if err != nil {
		return nil, err.Error()
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		if resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusUnauthorized {
			return nil, fmt.Sprintf("HTTP %d: the credentials may not get /metrics (grant nonResourceURLs [\"/metrics\"] verbs [get], see deploy/rbac)", resp.StatusCode)
		}
		return nil, fmt.Sprintf("HTTP %d", resp.StatusCode)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 0; sc.Scan() && n < maxMetricsLines; n++ {
		line := sc.Text()
		if !strings.HasPrefix(line, syncErrorsMetric+"{") {
			continue
		}
		typ, value, ok := parseTypeSample(line[len(syncErrorsMetric):])
		if ok {
			out[typ] += value
		}
	}
	if err := sc.Err(); err != nil {
		return nil, "reading /metrics: " + apiclient.OneLine(err.Error())
	}
	return out, ""
}

// parseTypeSample reads `{type="fetch_discovery",...} 3` (the labels of one sample and its
// value) and returns the type label and the value.
func parseTypeSample(s string) (string, float64, bool) {
	end := strings.LastIndex(s, "}")
	if !strings.HasPrefix(s, "{") || end < 0 {
		return "", 0, false
	}
	labels, rest := s[1:end], strings.Fields(s[end+1:])
	if len(rest) == 0 {
		return "", 0, false
	}
	v, err := strconv.ParseFloat(rest[0], 64)
	if err != nil {
		return "", 0, false
	}
	for _, kv := range strings.Split(labels, ",") {
		if k, val, ok := strings.Cut(kv, "="); ok && strings.TrimSpace(k) == "type" {
			return strings.Trim(val, `"`), v, true
		}
	}
	return "", 0, false
}

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
