// Package discover takes a Snapshot of a live control plane: it finds every kube-apiserver
// (from the identity Leases in kube-system, from --endpoint URLs, or from one kubeconfig
// context per server), asks each one directly what it serves by itself, and records the
// evidence the routing rules need (readyz hooks, identity lease, peer-aggregated /apis,
// CRD and APIService group versions, StorageVersions for 1.28–1.32).
//
// The package does no printing: progress and warnings go to callbacks in Options, per-server
// failures are recorded in the Snapshot (Reachable=false, Error), and FailureLine words them
// for a terminal. Credentials from the kubeconfig never appear in what it returns.
//
// docs/snapshot.md describes the result, the fallbacks and the RBAC needed.
package discover
