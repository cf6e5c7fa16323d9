package mvp

import "github.com/mvpctl/mvpctl/pkg/snapshot"

// Why a group/version is excluded from peers' discovery.
const (
	ExcludedCRD        = "a CustomResourceDefinition"
	ExcludedAPIService = "an aggregated APIService"
)

// ExcludedGroupVersions returns the group/versions a 1.35+ server removes from its peers'
// discovery, so never proxies (docs/behaviour.md §6): every version of every
// CustomResourceDefinition, served or not, and every APIService backed by a service. They come
// from the cluster (one etcd), and from any server's resources marked as CRD or aggregated.
// The map's values say which of the two ("a CustomResourceDefinition", ...). Whether the
// exclusion applies is the era's (Era.ExcludesCRDsAndAPIServices).
func ExcludedGroupVersions(snap *snapshot.Snapshot) map[string]string {
	ex := map[string]string{}
	for _, gv := range snap.Cluster.CustomResourceGroupVersions {
		ex[gv] = ExcludedCRD
	}
	for _, gv := range snap.Cluster.AggregatedGroupVersions {
		ex[gv] = ExcludedAPIService
	}
	for i := range snap.Servers {
		for _, r := range snap.Servers[i].Resources {
			switch r.Source {
			case snapshot.SourceCRD:
				ex[r.GroupVersion()] = ExcludedCRD
			case snapshot.SourceAggregated:
				ex[r.GroupVersion()] = ExcludedAPIService
			}
		}
	}
	return ex
}

// ClusterScoped reports whether a resource belongs to the cluster (CRDs and aggregated
// APIServices live in etcd, not in the binary): an upgrade of one server keeps serving them.
func ClusterScoped(r snapshot.Resource) bool {
	return r.Source == snapshot.SourceCRD || r.Source == snapshot.SourceAggregated
}
