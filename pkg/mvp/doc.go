// Package mvp is what kube-apiserver's Mixed Version Proxy (KEP-4020) does, version by version:
// the one place in mvpctl that holds the apiserver's rules. Which peer-proxy implementation
// (era) a binary runs, the feature gate's default, when the proxy filter is installed, which
// group/versions are never proxied, what a graceful stop, a start or a crash does to the
// leases and the peers' caches, the identity a server's hostname gives it, which peers a server
// learns, and the vocabulary of outcomes and 503 flavours.
//
// Every other package asks this one; none keeps a version threshold of its own. When a new
// Kubernetes minor arrives, this package (and docs/behaviour.md, which every rule cites) is
// what changes. The package is the rules only, as pure functions, constants and typed values: no
// I/O, no printing, and no function that changes a server or a snapshot it is given. It
// decides (StopDeletesIdentityLease, StartDeletesIdentityLease, RebuildsPeerCaches,
// DroppedAtRebuild); what applies a decision to a server lives with the steps that change
// servers (pkg/simulate, process.go).
package mvp
