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

// The client evidence a kube-apiserver's /metrics holds: how many requests it served per
// group/version/resource since its process started. internal/apimetrics reads them by these
// names; pkg/discover records them in a snapshot (snapshot.RequestCounts).
const (
	// RequestTotalMetric counts the requests a server handled, by verb, dry_run, group,
	// version, resource, subresource, scope, component and code (k8s.io/apiserver
	// pkg/endpoints/metrics). A request a server proxied to a peer is counted by the peer.
	RequestTotalMetric = "apiserver_request_total"
	// ProcessStartTimeMetric is when the server's process started, in seconds since the
	// epoch (the Prometheus process collector every component registers): the start of
	// RequestTotalMetric's span.
	ProcessStartTimeMetric = "process_start_time_seconds"
)
