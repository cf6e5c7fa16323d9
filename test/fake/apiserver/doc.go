// Package apiserver serves fake kube-apiservers for tests of code that reads live
// control planes (pkg/discover, cmd/mvpctl, pkg/probe): /version, /readyz?verbose, aggregated
// and legacy discovery negotiated as kube-apiserver negotiates it, identity leases, CRD,
// APIService and StorageVersion lists, bearer-token or client-certificate auth, and per-path
// overrides for failure cases. Bodies are marshalled from the k8s.io/api and apimachinery
// types, so their shapes are the real ones.
package apiserver
