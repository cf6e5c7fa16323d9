package mvp

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Removed APIs. A kind whose k8s.io/api prerelease-lifecycle says it is removed in a release
// (APILifecycleRemoved) is not served by that release's kube-apiserver, even when
// --runtime-config switches its group/version on: the storage is dropped at startup
// (k8s.io/apiserver pkg/server/deleted_kinds.go:150-171, the same in v0.37.2 and
// v0.38.0-alpha.2). One escape: the process environment variable ServeRemovedAPIsEnv=true
// keeps serving it for that one release (deleted_kinds.go:167-169); the release after drops it
// whatever the environment says (:155-157). Alpha builds keep serving it (:163-165): only a
// release is modelled.

// ServeRemovedAPIsEnv is the environment variable of the one-release escape
// (deleted_kinds.go:115-121).
const ServeRemovedAPIsEnv = "KUBE_APISERVER_SERVE_REMOVED_APIS_FOR_ONE_RELEASE"

// StatedEnvNames are the environment variables of a kube-apiserver container that a static pod
// manifest states and the rules read.
var StatedEnvNames = []string{ServeRemovedAPIsEnv}

// ParseServeRemovedAPIs reads the escape's value as kube-apiserver does (strconv.ParseBool,
// deleted_kinds.go:117); a value it cannot read makes kube-apiserver refuse to start.
func ParseServeRemovedAPIs(value string) (bool, error) {
	on, err := strconv.ParseBool(value)
	if err != nil {
		return false, fmt.Errorf("%s=%q: kube-apiserver refuses to start (it reads the value with strconv.ParseBool: true, false, 1, 0, …)", ServeRemovedAPIsEnv, value)
	}
	return on, nil
}

// ServesRemovedKind reports whether a kube-apiserver release of version v serves a kind whose
// lifecycle says it is removed in removedMinor, with the escape on or off
// (deleted_kinds.go:150-171).
func ServesRemovedKind(v snapshot.Version, removedMinor int, escape bool) bool {
	switch {
	case v.Major != 1 || v.Minor < removedMinor:
		return true
	case v.Minor > removedMinor:
		return false
	}
	return escape
}

// removedGroupVersions are the group/versions whose every kind a release removes, by the minor
// that removes them: read from k8s.io/api's zz_generated.prerelease-lifecycle.go (the extracted
// facts of a provisional profile say the same; a test checks that they agree).
var removedGroupVersions = map[string]int{
	// k8s.io/api v0.38.0-alpha.2 resource/v1beta1/zz_generated.prerelease-lifecycle.go:39,75,111,147:
	// DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice removed in 1.38.
	"resource.k8s.io/v1beta1": 38,
}

// RemovedGroupVersion is the minor that stops serving gv even when it is enabled, if one does.
func RemovedGroupVersion(gv string) (minor int, ok bool) {
	minor, ok = removedGroupVersions[gv]
	return minor, ok
}

// RemovedGroupVersions lists the group/versions a release of minor v removes, sorted.
func RemovedGroupVersions(v snapshot.Version) []string {
	var out []string
	for gv, m := range removedGroupVersions {
		if v.Major == 1 && v.Minor == m {
			out = append(out, gv)
		}
	}
	sort.Strings(out)
	return out
}

// RemovedVersions says, for a removed group/version, in which versions it is not served even
// when enabled, and in which the escape still serves it: ("1.38+", "1.38").
func RemovedVersions(gv string) (notServed, escape string) {
	m, ok := removedGroupVersions[gv]
	if !ok {
		return "", ""
	}
	return minorRange(m, 0), minorRange(m, m)
}

// RemovedFix is what to do about a client of a removed group/version before upgrading to the
// release that removes it: move it to the group's newer version, or, for one release only,
// the escape.
func RemovedFix(gv, replacement string) string {
	m, _ := removedGroupVersions[gv]
	move := "move the client to a version the release still serves"
	if replacement != "" {
		move = "move the client to " + replacement
	}
	return fmt.Sprintf("%s; or, for 1.%d only, start every 1.%d kube-apiserver with %s=true in its environment (the static pod manifest's env): 1.%d drops %s whatever the environment says",
		move, m, m, ServeRemovedAPIsEnv, m+1, gv)
}

// Discovery negotiation. kube-apiserver answers /apis and /api with the aggregated discovery
// document only for the apidiscovery.k8s.io versions it negotiates; an Accept naming none of
// them gets the unaggregated document (k8s.io/apiserver pkg/endpoints/discovery/aggregated
// wrapper.go:44-61). Up to v0.37.2 v2beta1 is negotiated only with the
// AggregatedDiscoveryRemoveBetaType gate off (negotiation.go:43-46): off by default before
// 1.33, on by default from 1.33 and locked on from 1.35 (kube_features.go:339-343), so the
// v2beta1 404 of handler.go:579-583 is out of reach at the defaults. v0.38.0-alpha.2 negotiates
// v2 alone (negotiation.go:40) and deletes the gate, so a 1.38 kube-apiserver refuses
// --feature-gates=AggregatedDiscoveryRemoveBetaType=… at startup as an unrecognized gate
// (component-base featuregate/feature_gate.go:421 in v0.37.2). At the defaults nothing a
// client sees changes from 1.35 on.

// firstV2OnlyDiscoveryMinor is the first minor whose code negotiates apidiscovery.k8s.io/v2 only.
const firstV2OnlyDiscoveryMinor = 38

// RuleDiscoveryV2Only: only apidiscovery.k8s.io/v2 is negotiated, whatever the gates.
const RuleDiscoveryV2Only Rule = "discovery-v2-only"

// RemovedDiscoveryGate is the gate 1.38 deletes with v2beta1 discovery.
const RemovedDiscoveryGate = "AggregatedDiscoveryRemoveBetaType"

// NegotiatesDiscoveryV2Beta1 reports whether a binary of version v can negotiate the
// apidiscovery.k8s.io/v2beta1 document at all (before 1.38, and then only with
// RemovedDiscoveryGate off).
func NegotiatesDiscoveryV2Beta1(v snapshot.Version) bool {
	return !(v.Major == 1 && v.Minor >= firstV2OnlyDiscoveryMinor)
}

// RuleRemovedAPI: a group/version removed by its lifecycle is not served even when enabled.
const RuleRemovedAPI Rule = "removed-api"
