// Package peerdiscovery predicts the peer-aggregated discovery document (default /apis) every
// kube-apiserver of a snapshot should serve, and compares it with what each one served.
//
// From 1.35 a kube-apiserver with the Mixed Version Proxy built answers a default aggregated
// /apis request with the merge of its own document and the documents it fetched from its
// peers (docs/behaviour.md §7). The prediction uses a copy of the server's own code for the
// merge (mergeresources.go, mirroring mergeResources of k8s.io/apiserver
// pkg/endpoints/discovery/aggregated; the tests compare the two) over:
//
//   - the server's own /apis document (profile=nopeer), as recorded in the snapshot;
//   - for every peer it has learned — an identity lease with a holder, the feature gate on,
//     and (for mvpctl to know it) a recorded document — that peer's own /apis groups, the core
//     group skipped, filtered by the exclusion set as the 1.36+ exclusion manager does: every
//     version of every CRD and every APIService with spec.service is taken from the server's
//     own view only (docs/behaviour.md §6).
//
// The expected ETag is the one kube-apiserver computes. With no peers the expected document is
// the server's own, unchanged.
//
// Diff classes each difference as stale (advertised, but no reachable apiserver serves it),
// missing (served by the server or a learned peer, not advertised), unexpected (advertised
// and served somewhere, but not by anything the server has learned), ordering or metadata.
// Servers without peer-aggregated discovery are reported as such, never as mismatches.
package peerdiscovery
