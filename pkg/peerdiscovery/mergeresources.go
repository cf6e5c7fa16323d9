package peerdiscovery

// This file is mvpctl's copy of kube-apiserver's peer-aggregated discovery merge: the
// functions of k8s.io/apiserver pkg/endpoints/discovery/aggregated/peer_aggregated_handler.go
// from mergeResources down, unchanged in 1.35, 1.36 and 1.37. The rules are described in
// docs/behaviour.md §7 ("Building the document").
//
// mvpctl used to call the package's exported TestMergeResources instead, which linked the
// apiserver's HTTP handler stack (grpc, OpenTelemetry, cel-go, Prometheus: over 200 packages)
// into the binary for one pure function. The copy keeps the server's names, its order of
// operations and its quirks, because a prediction that is "nearly" the server's merge gives a
// different ETag: duplicate group, version and resource names, a peer listed under the server's
// own ID, nil versus empty slices in the deep-equality test, and which results share slices
// with the inputs all follow the original. TestMergeEqualsApiserver and
// FuzzMergeEqualsApiserver compare it with the original, byte for byte.
//
// Only the order merge (MergePreservingRelativeOrder) is not copied: the server imports it
// from k8s.io/apimachinery pkg/util/sort, a small package with no dependencies beyond
// apimachinery's sets, and so does this file.

import (
	"reflect"
	"slices"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	utilsort "k8s.io/apimachinery/pkg/util/sort"
)

// mergeResources mirrors the server's peerAggregatedDiscoveryHandler.mergeResources (called
// by TestMergeResources with the handler's serverID): servers in ascending ID order, the first
// to list a group gives its base, every later copy is merged into it; the group order is the
// local one when every server lists the same names in the same order, else the merge of all
// the servers' orders. It does not copy: the result shares groups, versions and resources
// with the inputs, and with no merge needed it is localGroups itself.
func mergeResources(serverID string, localGroups []Group, peerGroupDiscovery map[string][]Group) []Group {
	discoveryByServerID := combineServerDiscoveryLists(serverID, localGroups, peerGroupDiscovery)
	if len(discoveryByServerID) <= 1 {
		// No peers (or only an entry under the server's own ID): the local document unchanged,
		// the same bytes and ETag as profile=nopeer (docs/behaviour.md §7).
		return localGroups
	}

	mergedGroupMap := make(map[string]Group)
	allGroupNames := make([][]string, 0, len(discoveryByServerID))
	sortedServerIDs := sortServerIDs(discoveryByServerID)

	// contentChanged: some later server's copy of a group changed its base.
	contentChanged := false
	// groupNameListsAreIdentical: every server lists the local group names in the local order.
	// It is compared with the names of localGroups, the argument, even when a peer entry under
	// the server's own ID replaced it in discoveryByServerID (as the server does).
	groupNameListsAreIdentical := true
	localNames := localGroupNames(localGroups)
	for _, id := range sortedServerIDs {
		groupNames, didThisServerMerge := processServerGroups(discoveryByServerID[id], mergedGroupMap)
		if didThisServerMerge {
			contentChanged = true
		}
		allGroupNames = append(allGroupNames, groupNames)
		// Both lists are always non-nil (made with make), so slices.Equal is the server's
		// reflect.DeepEqual here.
		if !slices.Equal(localNames, groupNames) {
			groupNameListsAreIdentical = false
		}
	}

	// Nothing changed: the local list itself, not the assembled one. The two differ when the
	// local list repeats a group name (the map holds the merge of the repeats).
	if !contentChanged && groupNameListsAreIdentical {
		return localGroups
	}

	var finalGroupOrder []string
	if contentChanged && groupNameListsAreIdentical {
		finalGroupOrder = localNames
	} else {
		finalGroupOrder = utilsort.MergePreservingRelativeOrder(allGroupNames)
	}
	return assembleGroups(mergedGroupMap, finalGroupOrder)
}

// processServerGroups mirrors the server's processServerGroups: one server's groups into the
// merged map. The returned names keep the server's order and its repeats, which matter to the
// order merge (a repeat can make a cycle, and then the order is lexicographic).
func processServerGroups(discoveryGroups []Group, mergedGroupMap map[string]Group) (groupNames []string, contentMerged bool) {
	groupNames = make([]string, 0, len(discoveryGroups))
	for _, group := range discoveryGroups {
		if existing, ok := mergedGroupMap[group.Name]; ok {
			mergedG, didMerge := mergeVersionsAcrossGroup(existing, group)
			mergedGroupMap[group.Name] = mergedG
			if didMerge {
				contentMerged = true
			}
		} else {
			mergedGroupMap[group.Name] = group
		}
		groupNames = append(groupNames, group.Name)
	}
	return groupNames, contentMerged
}

// mergeVersionsAcrossGroup mirrors the server's mergeVersionsAcrossGroup: b's versions into
// a's. It reports whether the result differs from a; when it does not, a itself is returned
// (its Versions slice shared). A version name a repeats keeps a's last copy; one b repeats is
// merged again. The merged group's metadata is a's (ObjectMeta deep-copied, as the server
// does).
func mergeVersionsAcrossGroup(a, b Group) (Group, bool) {
	versionOrder := [][]string{}
	mergedVersionMap := make(map[string]apidiscoveryv2.APIVersionDiscovery)

	aVersionNames := make([]string, 0, len(a.Versions))
	bVersionNames := make([]string, 0, len(b.Versions))
	// contentMerged: a version both list had its resources changed by b's copy.
	contentMerged := false

	for _, v := range a.Versions {
		aVersionNames = append(aVersionNames, v.Version)
		mergedVersionMap[v.Version] = v
	}
	versionOrder = append(versionOrder, aVersionNames)

	for _, v := range b.Versions {
		bVersionNames = append(bVersionNames, v.Version)
		if existing, ok := mergedVersionMap[v.Version]; !ok {
			mergedVersionMap[v.Version] = v
		} else {
			mergedV, didMerge := mergeResourcesAcrossVersion(existing, v)
			mergedVersionMap[v.Version] = mergedV
			if didMerge {
				contentMerged = true
			}
		}
	}
	versionOrder = append(versionOrder, bVersionNames)

	versionNamesAreIdentical := slices.Equal(aVersionNames, bVersionNames) // both non-nil
	if !contentMerged && versionNamesAreIdentical {
		return a, false
	}

	var finalVersionOrder []string
	if versionNamesAreIdentical {
		finalVersionOrder = aVersionNames
	} else {
		finalVersionOrder = utilsort.MergePreservingRelativeOrder(versionOrder)
	}

	return Group{
		ObjectMeta: *a.ObjectMeta.DeepCopy(),
		TypeMeta:   a.TypeMeta,
		Versions:   orderedAPIVersionList(mergedVersionMap, finalVersionOrder),
	}, true
}

// mergeResourcesAcrossVersion mirrors the server's mergeResourcesAcrossVersion: b's resources
// into a's. A resource both list is kept when the two are reflect.DeepEqual — so a nil and an
// empty list of verbs differ, and their union is taken — else their capabilities are united.
// Version and freshness are a's: a stale copy stays stale, whatever the peers say
// (docs/behaviour.md §7, "no freshness reconciliation"). When nothing changed, a itself is
// returned.
func mergeResourcesAcrossVersion(a, b apidiscoveryv2.APIVersionDiscovery) (apidiscoveryv2.APIVersionDiscovery, bool) {
	resourceOrder := [][]string{}
	mergedResourceMap := make(map[string]apidiscoveryv2.APIResourceDiscovery)

	aResourceNames := make([]string, 0, len(a.Resources))
	bResourceNames := make([]string, 0, len(b.Resources))
	// contentChanged: a resource both list differs between the two.
	contentChanged := false

	for _, r := range a.Resources {
		aResourceNames = append(aResourceNames, r.Resource)
		mergedResourceMap[r.Resource] = r
	}
	resourceOrder = append(resourceOrder, aResourceNames)

	for _, r := range b.Resources {
		bResourceNames = append(bResourceNames, r.Resource)
		if existing, ok := mergedResourceMap[r.Resource]; !ok {
			mergedResourceMap[r.Resource] = r
		} else {
			if reflect.DeepEqual(existing, r) {
				continue
			}
			contentChanged = true
			mergedResourceMap[r.Resource] = mergeResourceCapabilities(existing, r)
		}
	}
	resourceOrder = append(resourceOrder, bResourceNames)

	resourceNameListIsIdentical := slices.Equal(aResourceNames, bResourceNames) // both non-nil
	if !contentChanged && resourceNameListIsIdentical {
		return a, false
	}

	var finalResourceOrder []string
	if resourceNameListIsIdentical {
		finalResourceOrder = aResourceNames
	} else {
		finalResourceOrder = utilsort.MergePreservingRelativeOrder(resourceOrder)
	}

	return apidiscoveryv2.APIVersionDiscovery{
		Version:   a.Version,
		Resources: orderedAPIResourceList(mergedResourceMap, finalResourceOrder),
		Freshness: a.Freshness,
	}, true
}

// mergeResourceCapabilities mirrors the server's mergeResourceCapabilities: the union of the
// verbs, sorted, and of the subresources by name (b's copy wins a clash), sorted by name. An
// empty union is nil: subresources are then left out of the JSON, but verbs (no omitempty)
// become "verbs":null — a resource listed with "verbs":[] by one server and without verbs by
// another is served so. Every other field is a's, or b's when a's resource name is empty.
func mergeResourceCapabilities(a, b apidiscoveryv2.APIResourceDiscovery) apidiscoveryv2.APIResourceDiscovery {
	verbSet := make(map[string]struct{})
	for _, v := range a.Verbs {
		verbSet[v] = struct{}{}
	}
	for _, v := range b.Verbs {
		verbSet[v] = struct{}{}
	}
	var newVerbs []string
	if len(verbSet) > 0 {
		newVerbs = make([]string, 0, len(verbSet))
		for v := range verbSet {
			newVerbs = append(newVerbs, v)
		}
		// The set's names are distinct, so any sort gives the server's sort.Strings order.
		slices.Sort(newVerbs)
	}

	subresourceSet := make(map[string]apidiscoveryv2.APISubresourceDiscovery)
	for _, s := range a.Subresources {
		subresourceSet[s.Subresource] = s
	}
	for _, s := range b.Subresources {
		subresourceSet[s.Subresource] = s
	}
	var newSubresources []apidiscoveryv2.APISubresourceDiscovery
	if len(subresourceSet) > 0 {
		newSubresources = make([]apidiscoveryv2.APISubresourceDiscovery, 0, len(subresourceSet))
		for _, s := range subresourceSet {
			newSubresources = append(newSubresources, s)
		}
		// Distinct names again: the order is the server's sort.Slice order.
		slices.SortFunc(newSubresources, func(x, y apidiscoveryv2.APISubresourceDiscovery) int {
			return strings.Compare(x.Subresource, y.Subresource)
		})
	}

	mergedResource := a
	if len(mergedResource.Resource) == 0 {
		mergedResource = b
	}
	mergedResource.Verbs = newVerbs
	mergedResource.Subresources = newSubresources
	return mergedResource
}

// assembleGroups mirrors the server's assembleGroups: the merged groups in the final order.
// Unlike versions and resources, a name is not removed once used: when every server repeats a
// group name the same way, the order is the local names with the repeat, and the merged group
// appears twice (MergePreservingRelativeOrder itself never repeats a name).
func assembleGroups(groupMap map[string]Group, orderedGroups []string) []Group {
	result := make([]Group, 0, len(orderedGroups))
	for _, groupName := range orderedGroups {
		if group, ok := groupMap[groupName]; ok {
			result = append(result, group)
		}
	}
	return result
}

// orderedAPIVersionList mirrors the server's orderedAPIVersionList: the merged versions in the
// final order, each once.
func orderedAPIVersionList(versionMap map[string]apidiscoveryv2.APIVersionDiscovery, orderedVersions []string) []apidiscoveryv2.APIVersionDiscovery {
	mergedVersions := make([]apidiscoveryv2.APIVersionDiscovery, 0, len(orderedVersions))
	for _, vName := range orderedVersions {
		if v, ok := versionMap[vName]; ok {
			mergedVersions = append(mergedVersions, v)
			delete(versionMap, vName)
		}
	}
	return mergedVersions
}

// orderedAPIResourceList mirrors the server's orderedAPIResourceList: the merged resources in
// the final order, each once.
func orderedAPIResourceList(resourceMap map[string]apidiscoveryv2.APIResourceDiscovery, orderedResources []string) []apidiscoveryv2.APIResourceDiscovery {
	mergedResources := make([]apidiscoveryv2.APIResourceDiscovery, 0, len(orderedResources))
	for _, rName := range orderedResources {
		if r, ok := resourceMap[rName]; ok {
			mergedResources = append(mergedResources, r)
			delete(resourceMap, rName)
		}
	}
	return mergedResources
}

// combineServerDiscoveryLists mirrors the server's combineServerDiscoveryLists: every
// server's list by ID, the local one first, so a peer entry under the server's own ID
// replaces the local list in the merge.
func combineServerDiscoveryLists(serverID string, localGroups []Group, peerGroupDiscovery map[string][]Group) map[string][]Group {
	allServerLists := make(map[string][]Group, len(peerGroupDiscovery)+1)
	allServerLists[serverID] = localGroups
	for peerID, peerList := range peerGroupDiscovery {
		allServerLists[peerID] = peerList
	}
	return allServerLists
}

// sortServerIDs mirrors the server's sortServerIDs: byte-wise ascending IDs, which decides
// whose copy of a group is the base (docs/behaviour.md §7).
func sortServerIDs(allServerLists map[string][]Group) []string {
	ids := make([]string, 0, len(allServerLists))
	for id := range allServerLists {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// localGroupNames mirrors the server's localGroupNames.
func localGroupNames(localGroups []Group) []string {
	names := make([]string, 0, len(localGroups))
	for _, g := range localGroups {
		names = append(names, g.Name)
	}
	return names
}
