package mvp

import (
	"fmt"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Rules of a binary version that do not depend on its configuration. Each cites the section of
// docs/behaviour.md it comes from.

// GateDefault is the UnknownVersionInteroperabilityProxy default: alpha and off from 1.28, beta
// and on from 1.36 (docs/behaviour.md §1).
func GateDefault(v snapshot.Version) bool { return v.Major == 1 && v.Minor >= firstGateDefaultOnMinor }

// CanAggregateDiscovery reports whether the binary has peer-aggregated discovery: its default
// /apis merges its peers' documents when the peer proxy is built (1.35+, docs/behaviour.md §7).
func CanAggregateDiscovery(v snapshot.Version) bool {
	return v.Major == 1 && v.Minor >= firstAggregationMinor
}

// HonoursNoPeerProfile reports whether /apis accepts profile=nopeer, which returns the server's
// own document (1.35+). Older binaries ignore the parameter; they do not aggregate either, so
// their v2 document is their own view as well.
func HonoursNoPeerProfile(v snapshot.Version) bool { return CanAggregateDiscovery(v) }

// StopDeletesIdentityLease reports whether a graceful stop (SIGTERM) deletes the server's
// identity lease (1.35+), so its peers forget it at once; older binaries leave the lease to
// expire (docs/behaviour.md §4.3).
func StopDeletesIdentityLease(v snapshot.Version) bool { return leaseControllerCleansUp(v) }

// StartDeletesIdentityLease reports whether a new process deletes the identity lease it finds
// at startup and creates it again with its own holder (1.35+), so every peer rebuilds its
// peer-discovery cache. An older one renews the lease it finds and keeps its holder, the
// first process's: a renewal, which no peer rebuilds on (docs/behaviour.md §11.4).
func StartDeletesIdentityLease(v snapshot.Version) bool { return leaseControllerCleansUp(v) }

// leaseControllerCleansUp: from 1.35 the identity lease controller deletes the lease when it
// starts and when it stops (component-helpers v0.35.4 apimachinery/lease/controller.go:103-141,
// Start and Stop); v0.34.4 has neither, and its newLease copies the lease it finds, holder
// included (controller.go:213-228).
func leaseControllerCleansUp(v snapshot.Version) bool {
	return v.Major == 1 && v.Minor >= firstAggregationMinor
}

// ReroutedMetricHasGVR reports whether apiserver_rerouted_request_total carries group, version
// and resource labels (1.36+). Before, it has only a code label and also counts the peer
// discovery fetches themselves.
func ReroutedMetricHasGVR(v snapshot.Version) bool {
	return v.Major == 1 && v.Minor >= firstGVRMetricLabelMinor
}

// PeerDiscoveryRetries is how many times a server retries fetching a peer's discovery before it
// drops the peer (docs/behaviour.md §11.4): 5 before 1.35, 20 from 1.35. Zero before 1.33,
// which do not fetch peers' discovery.
func PeerDiscoveryRetries(v snapshot.Version) int {
	switch e := EraOf(v); {
	case !e.HasProxy() || e.RoutesOnStorageVersions():
		return 0
	case e == EraDisc:
		return discPeerDiscoveryRetries
	default:
		return peerDiscoveryRetries
	}
}

const (
	discPeerDiscoveryRetries = 5  // rate-limited: ≈155 ms in all
	peerDiscoveryRetries     = 20 // rate-limited: about 55 min in all
)

// RelearnsRestartedPeer reports whether a server that dropped a dead peer at a rebuild learns
// it again when it comes back without a lease event (a pre-1.35 restart keeps its lease's
// holder): from 1.35 the failed sync is still being retried, for about 55 min, and the next
// retry fetches the peer again; before, the 5 retries were over within ≈155 ms, and it stays
// dropped until the next lease event (docs/behaviour.md §11.4).
func RelearnsRestartedPeer(v snapshot.Version) bool {
	return PeerDiscoveryRetries(v) == peerDiscoveryRetries
}

// HasPeerProxyMetrics reports whether the binary exports apiserver_peer_proxy_errors_total and
// apiserver_peer_discovery_sync_errors_total (1.36+, docs/behaviour.md §9).
func HasPeerProxyMetrics(v snapshot.Version) bool { return ReroutedMetricHasGVR(v) }

// AggregationSince names the first minor with peer-aggregated discovery, for messages.
func AggregationSince() string { return fmt.Sprintf("1.%d", firstAggregationMinor) }
