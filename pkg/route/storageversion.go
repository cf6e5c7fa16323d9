package route

import (
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// storageVersionIndex maps a GVR to the IDs of the servers whose StorageVersion entry lists
// its group/version (docs/behaviour.md §4.1), as 1.28–1.32 servers route.
type storageVersionIndex struct {
	entries map[snapshot.GVR]map[string]bool
	// derived is true when the snapshot recorded no StorageVersions and the index was built
	// from each server's built-in resources instead.
	derived bool
}

func buildStorageVersionIndex(snap *snapshot.Snapshot, views []*serverView) storageVersionIndex {
	idx := storageVersionIndex{entries: map[snapshot.GVR]map[string]bool{}}
	add := func(g snapshot.GVR, id string) {
		if idx.entries[g] == nil {
			idx.entries[g] = map[string]bool{}
		}
		idx.entries[g][id] = true
	}
	if snap.Cluster.StorageVersions != nil {
		for _, sv := range snap.Cluster.StorageVersions {
			for _, s := range sv.Servers {
				for _, gv := range s.ServedVersions {
					g := snapshot.GVR{Group: sv.Group, Resource: sv.Resource, Version: versionOf(gv)}
					add(g, s.APIServerID)
				}
			}
		}
		return idx
	}
	// Without recorded StorageVersions: every built-in resource a server serves is assumed to
	// have an entry naming it. CRDs and aggregated APIs never have one. This over-approximates
	// (resources without storage, such as tokenreviews, have no entry), so decisions using it
	// are marked inferred.
	idx.derived = true
	for _, v := range views {
		if v.srv.ID == "" {
			continue
		}
		for _, r := range v.srv.Resources {
			if r.Source == snapshot.SourceCRD || r.Source == snapshot.SourceAggregated {
				continue
			}
			add(r.GVR(), v.srv.ID)
		}
	}
	return idx
}

// versionOf returns the version part of a servedVersions string ("batch/v1" → "v1", "v1" → "v1").
func versionOf(gv string) string {
	for i := len(gv) - 1; i >= 0; i-- {
		if gv[i] == '/' {
			return gv[i+1:]
		}
	}
	return gv
}

// lookup returns the set of server IDs for gvr, and a note when the index was derived.
func (idx storageVersionIndex) lookup(gvr snapshot.GVR) (map[string]bool, string) {
	note := ""
	if idx.derived {
		note = " [inferred: the snapshot has no StorageVersion objects; derived from the servers' built-in resources]"
	}
	return idx.entries[gvr], note
}
