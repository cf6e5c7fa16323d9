package discover

import (
	"maps"
	"slices"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// recordAPIServiceDiscovery records, for each aggregated APIService, what every reachable
// server's own aggregated /apis says of its group/version: the resources it lists (Stale
// entries keep the backend's last list), which servers mark it Stale and which do not list it.
// Servers without a v2 document (legacy discovery) say nothing either way.
func recordAPIServiceDiscovery(as []snapshot.APIService, results []*result) {
	sorted := sortedResults(results)
	for i := range as {
		a := &as[i]
		if !a.Aggregated() {
			continue
		}
		resources := map[string]bool{}
		for _, r := range sorted {
			if r.client == nil || r.err != nil || r.doc == nil || r.doc.apis == nil {
				continue
			}
			v := findVersion(r.doc.apis.Items, a.Group, a.Version)
			switch {
			case v == nil:
				a.Unlisted = append(a.Unlisted, serverName(r))
				continue
			case v.Freshness == apidiscoveryv2.DiscoveryFreshnessStale:
				a.Stale = append(a.Stale, serverName(r))
			}
			for _, res := range v.Resources {
				resources[res.Resource] = true
			}
		}
		a.Resources = slices.Sorted(maps.Keys(resources))
	}
}

func findVersion(items []apidiscoveryv2.APIGroupDiscovery, group, version string) *apidiscoveryv2.APIVersionDiscovery {
	for i := range items {
		if items[i].Name != group {
			continue
		}
		for j := range items[i].Versions {
			if items[i].Versions[j].Version == version {
				return &items[i].Versions[j]
			}
		}
	}
	return nil
}

// noteUnavailableAPIServices says, as progress, which aggregated APIServices the aggregator
// takes for unavailable: every apiserver answers their requests with its own 503. It is a
// fact of the cluster the snapshot records, not a problem of the snapshot: routes, explain,
// probe and preflight (MVP050) report it where it matters.
func (d *discoverer) noteUnavailableAPIServices(as []snapshot.APIService) {
	for _, a := range as {
		if a.Aggregated() && !a.IsAvailable() {
			d.progress("APIService %s is not available (%s): %s", a.Name, mvp.APIServiceConditionText(a), mvp.AggregatorUnavailableConsequence)
		}
	}
}
