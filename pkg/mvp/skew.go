package mvp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// The version-skew policy of Kubernetes for kube-apiserver: in a highly available control plane
// the newest and the oldest apiserver are at most one minor version apart, and an upgrade goes
// one minor at a time, never backwards (docs/behaviour.md §1, "Upgrades").

// UpgradeStep classifies upgrading a server from one version to another.
type UpgradeStep int

const (
	// UpgradeAllowed: to is the same minor (a patch release) or the next minor.
	UpgradeAllowed UpgradeStep = iota
	// UpgradeNone: the server already runs to (same minor, same or newer patch): nothing to do.
	UpgradeNone
	// UpgradeSkipsMinor: to is two or more minors ahead, outside the skew policy.
	UpgradeSkipsMinor
	// UpgradeDowngrade: to is older than the server's version.
	UpgradeDowngrade
)

// ClassifyUpgrade says what upgrading from to to is under the skew policy.
func ClassifyUpgrade(from, to snapshot.Version) UpgradeStep {
	switch {
	case to.Major != from.Major || to.Minor < from.Minor:
		if to.Major > from.Major {
			return UpgradeSkipsMinor
		}
		return UpgradeDowngrade
	case to.Minor == from.Minor && to.Patch < from.Patch:
		return UpgradeDowngrade
	case to.Minor == from.Minor && to.Patch == from.Patch:
		return UpgradeNone
	case to.Minor == from.Minor:
		return UpgradeAllowed
	case to.Minor == from.Minor+1:
		return UpgradeAllowed
	default:
		return UpgradeSkipsMinor
	}
}

// SameMinor reports whether two versions run the same peer-proxy code: patch releases do not
// change it (docs/behaviour.md §1), so one profile per minor suffices.
func SameMinor(a, b snapshot.Version) bool { return a.Major == b.Major && a.Minor == b.Minor }

// ControlPlaneSkew returns an error naming the servers when the newest and the oldest server
// of versions (server name → version) are more than one minor version apart.
func ControlPlaneSkew(versions map[string]snapshot.Version) error {
	if len(versions) < 2 {
		return nil
	}
	names := make([]string, 0, len(versions))
	for n := range versions {
		names = append(names, n)
	}
	sort.Strings(names)
	oldest, newest := names[0], names[0]
	for _, n := range names {
		v := versions[n]
		if v.Compare(versions[oldest]) < 0 {
			oldest = n
		}
		if v.Compare(versions[newest]) > 0 {
			newest = n
		}
	}
	o, nw := versions[oldest], versions[newest]
	if o.Major == nw.Major && nw.Minor-o.Minor <= 1 {
		return nil
	}
	var at []string
	for _, n := range names {
		at = append(at, fmt.Sprintf("%s=%s", n, versions[n]))
	}
	return fmt.Errorf("the control plane is outside the version-skew policy: %s (%s) and %s (%s) are more than one minor version apart (%s)",
		newest, nw, oldest, o, strings.Join(at, ", "))
}

// EmulationFloorMinors is how many minors below its binary version a kube-apiserver can
// emulate (--emulated-version): the floor is the binary's minor minus 3, and an emulated
// version above the binary's is refused too (k8s.io/apiserver
// pkg/util/compatibility/version.go:45, `binaryVersion.WithPatch(0).SubtractMinor(3)`, the
// same in v0.33 to v0.38.0-alpha.2; checked by component-base compatibility.Validate).
const EmulationFloorMinors = 3

// CheckEmulatedVersion returns an error when emulated (major.minor) is a version binary
// cannot emulate: newer than binary, or more than EmulationFloorMinors minors older.
func CheckEmulatedVersion(binary, emulated snapshot.Version) error {
	if emulated.Major != binary.Major || emulated.Minor > binary.Minor || emulated.Minor+EmulationFloorMinors < binary.Minor {
		return fmt.Errorf("emulated version %s is not between %d.%d and %s: a kube-apiserver %s cannot emulate it", emulated.MinorString(),
			binary.Major, max(binary.Minor-EmulationFloorMinors, 0), binary.MinorString(), binary)
	}
	return nil
}
