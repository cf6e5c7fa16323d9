package mvp

import (
	"fmt"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// GroupVersionExclusion says why a 1.35+ server excludes a group/version from its peers'
// discovery: it belongs to a CustomResourceDefinition or to an aggregated APIService. The zero
// value, NotExcluded, says it does not; String words the reason.
type GroupVersionExclusion uint8

const (
	NotExcluded GroupVersionExclusion = iota
	ExcludedCRD
	ExcludedAPIService
)

// String names what the group/version belongs to, for a person to read.
func (e GroupVersionExclusion) String() string {
	switch e {
	case NotExcluded:
		return ""
	case ExcludedCRD:
		return "a CustomResourceDefinition"
	case ExcludedAPIService:
		return "an aggregated APIService"
	}
	return fmt.Sprintf("GroupVersionExclusion(%d)", uint8(e))
}

// ExcludedGroupVersions returns the group/versions a 1.35+ server removes from its peers'
// discovery, so never proxies (docs/behaviour.md §6): every version of every
// CustomResourceDefinition, served or not, and every APIService backed by a service. They come
// from the cluster (one etcd), and from any server's resources marked as CRD or aggregated.
// The map's values say which of the two (ExcludedCRD, ExcludedAPIService). Whether the
// exclusion applies is the era's (Era.ExcludesCRDsAndAPIServices).
func ExcludedGroupVersions(snap *snapshot.Snapshot) map[string]GroupVersionExclusion {
	ex := ClusterExcludedGroupVersions(snap)
	for i := range snap.Servers {
		for _, r := range snap.Servers[i].Resources {
			if why := ExclusionOf(r); why != NotExcluded {
				ex[r.GroupVersion()] = why
			}
		}
	}
	return ex
}

// ClusterExcludedGroupVersions is the part of ExcludedGroupVersions the cluster's own lists
// give (a group/version in both is an APIService's); the servers' resources marked as CRD or
// aggregated (ExclusionOf) add to it and win.
func ClusterExcludedGroupVersions(snap *snapshot.Snapshot) map[string]GroupVersionExclusion {
	ex := map[string]GroupVersionExclusion{}
	for _, gv := range snap.Cluster.CustomResourceGroupVersions {
		ex[gv] = ExcludedCRD
	}
	for _, gv := range snap.Cluster.AggregatedGroupVersions {
		ex[gv] = ExcludedAPIService
	}
	for _, a := range snap.Cluster.APIServices {
		if a.Aggregated() {
			ex[a.GroupVersion()] = ExcludedAPIService
		}
	}
	return ex
}

// ExclusionOf says why a 1.35+ server excludes r's group/version from its peers' discovery
// (ExcludedCRD, ExcludedAPIService), or NotExcluded when r's source does not exclude it.
func ExclusionOf(r snapshot.Resource) GroupVersionExclusion {
	switch r.Source {
	case snapshot.SourceCRD:
		return ExcludedCRD
	case snapshot.SourceAggregated:
		return ExcludedAPIService
	}
	return NotExcluded
}

// ClusterScoped reports whether a resource belongs to the cluster (CRDs and aggregated
// APIServices live in etcd, not in the binary): an upgrade of one server keeps serving them.
func ClusterScoped(r snapshot.Resource) bool {
	return r.Source == snapshot.SourceCRD || r.Source == snapshot.SourceAggregated
}
