package mvp

// The peer-proxy metric families a kube-apiserver exports (docs/behaviour.md §9); the sync
// errors of peer discovery are PeerDiscoverySyncErrorsMetric (learn.go). internal/apimetrics
// reads them by these names.
const (
	// ReroutedMetric counts requests a server proxied to a peer, by final status code (and,
	// from 1.36, group/version/resource; peer-discovery fetches carry empty ones).
	ReroutedMetric = "apiserver_rerouted_request_total"
	// PeerProxyErrorsMetric (1.36+) counts endpoint-resolution failures (503s that are not in
	// ReroutedMetric) by type and group/version/resource.
	PeerProxyErrorsMetric = "apiserver_peer_proxy_errors_total"
)
