package mvp

import (
	"fmt"
	"strings"
)

// Rule is one rule of the Mixed Version Proxy that an explanation for people cites, with the
// Kubernetes versions it holds for (docs/behaviour.md §1, "Rules by version"). Explanations
// print Versions next to the rule instead of an era name, so no other package needs a minor
// number.
type Rule string

// The rules explanations cite.
const (
	// RuleFilter: the proxy filter exists only with the gate on and --peer-ca-file set.
	RuleFilter Rule = "proxy-filter"
	// RuleGateDefaultOff and RuleGateDefaultOn: the gate's default.
	RuleGateDefaultOff Rule = "gate-default-off"
	RuleGateDefaultOn  Rule = "gate-default-on"
	// RuleNoProxy: before the Mixed Version Proxy existed.
	RuleNoProxy Rule = "no-proxy"
	// RuleNonResource: discovery, health, version and metrics requests are never proxied.
	RuleNonResource Rule = "non-resource"
	// RuleLoopHeader: a request carrying the loop-prevention header is never proxied again.
	RuleLoopHeader Rule = "loop-prevention"
	// RuleStorageVersionRouting: peers are found through StorageVersion objects.
	RuleStorageVersionRouting Rule = "storageversion-routing"
	// RuleDiscoveryRouting: a server checks its own discovery, then its peers'.
	RuleDiscoveryRouting Rule = "discovery-routing"
	// RuleLearnsAggregatedView: a server takes a newer peer's peer-aggregated /apis for what it serves.
	RuleLearnsAggregatedView Rule = "learns-aggregated-view"
	// RulePeerAggregatedDiscovery: a server's /apis lists what it learned from its peers.
	RulePeerAggregatedDiscovery Rule = "peer-aggregated-discovery"
	// RuleExclusion: CRD and aggregated APIService group/versions are never proxied.
	RuleExclusion Rule = "crd-apiservice-exclusion"
	// RuleAnyUnresolved503: one candidate whose address does not resolve fails the request.
	RuleAnyUnresolved503 Rule = "any-unresolved-503"
	// RuleNoneResolves503: 503 when no candidate's address resolves.
	RuleNoneResolves503 Rule = "none-resolves-503"
	// RuleRandomPeer: one resolvable candidate is picked at random.
	RuleRandomPeer Rule = "random-peer"
	// RuleTransport503: a peer whose address resolves but does not answer is a 503.
	RuleTransport503 Rule = "transport-503"
	// RuleRebuildExit: a failed peer-discovery fetch at a rebuild makes the server exit.
	RuleRebuildExit Rule = "rebuild-exit"
	// RuleAggregator: an aggregated APIService's group/version is answered by the server's own
	// kube-aggregator (docs/behaviour.md §16). It predates the proxy, so it has no versions.
	RuleAggregator Rule = "apiservice-aggregator"
)

// ruleMinors is, per rule, the first and last minor it holds for (0: no upper bound).
var ruleMinors = map[Rule][2]int{
	RuleFilter:                  {firstProxyMinor, 0},
	RuleGateDefaultOff:          {firstProxyMinor, firstGateDefaultOnMinor - 1},
	RuleGateDefaultOn:           {firstGateDefaultOnMinor, 0},
	RuleNoProxy:                 {0, firstProxyMinor - 1},
	RuleNonResource:             {firstProxyMinor, 0},
	RuleLoopHeader:              {firstProxyMinor, 0},
	RuleStorageVersionRouting:   {firstProxyMinor, firstDiscoveryMinor - 1},
	RuleDiscoveryRouting:        {firstDiscoveryMinor, 0},
	RuleLearnsAggregatedView:    {firstDiscoveryMinor, firstAggregationMinor - 1},
	RulePeerAggregatedDiscovery: {firstAggregationMinor, 0},
	RuleExclusion:               {firstAggregationMinor, 0},
	RuleAnyUnresolved503:        {firstProxyMinor, firstSV2Minor - 1},
	RuleNoneResolves503:         {firstSV2Minor, 0},
	RuleRandomPeer:              {firstProxyMinor, 0},
	RuleTransport503:            {firstProxyMinor, 0},
	RuleRebuildExit:             {firstDiscoveryMinor, firstAggregationMinor - 1},
	RuleNotFoundText:            {0, firstStatusNotFoundMinor - 1},
	RuleNotFoundStatus:          {firstStatusNotFoundMinor, 0},
	RuleDiscoveryV2Only:         {firstV2OnlyDiscoveryMinor, 0},
}

// Versions is the Kubernetes versions a rule holds for: "1.28+", "1.28–1.31", "before 1.28".
func (r Rule) Versions() string {
	m, ok := ruleMinors[r]
	if !ok {
		return ""
	}
	return minorRange(m[0], m[1])
}

func minorRange(from, to int) string {
	switch {
	case from == 0:
		return fmt.Sprintf("before 1.%d", to+1)
	case to == 0:
		return fmt.Sprintf("1.%d+", from)
	case from == to:
		return fmt.Sprintf("1.%d", from)
	}
	return fmt.Sprintf("1.%d–1.%d", from, to)
}

// EraInfo is one era for documentation and --verbose output: its name, the versions it covers
// and what changed in it.
type EraInfo struct {
	Era      Era
	Versions string
	Summary  string
}

// Eras lists every era, oldest first.
func Eras() []EraInfo {
	return []EraInfo{
		{EraNone, minorRange(0, firstProxyMinor-1), "no Mixed Version Proxy"},
		{EraSV, minorRange(firstProxyMinor, firstSV2Minor-1), "alpha; peers found through StorageVersion objects; any unresolvable candidate is a 503"},
		{EraSV2, minorRange(firstSV2Minor, firstDiscoveryMinor-1), "as SV, but 503 only when no candidate resolves"},
		{EraDisc, minorRange(firstDiscoveryMinor, firstAggregationMinor-1), "peers found through their discovery documents"},
		{EraDiscAgg, minorRange(firstAggregationMinor, firstGateDefaultOnMinor-1), "adds peer-aggregated /apis and never proxies CRD/APIService group/versions"},
		{EraDiscAgg2, minorRange(firstGateDefaultOnMinor, 0), "as DISC+AGG; the feature gate is beta and on by default"},
	}
}

// Versions is the Kubernetes versions of an era ("1.33–1.34").
func (e Era) Versions() string {
	for _, i := range Eras() {
		if i.Era == e {
			return i.Versions
		}
	}
	return ""
}

// EnableFlag is the kube-apiserver flag that switches on a group/version ("batch/v1", or "v1"
// for the core group).
func EnableFlag(gv string) string {
	if !strings.Contains(gv, "/") {
		gv = "api/" + gv
	}
	return "--runtime-config=" + gv + "=true"
}
