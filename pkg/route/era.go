package route

import (
	"fmt"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Era is one implementation of the peer proxy (spec §1). The mechanism changed three times;
// the binary's minor version picks which code a server runs.
type Era string

const (
	// EraNone: before 1.28 there is no Mixed Version Proxy.
	EraNone Era = "none"
	// EraSV (1.28–1.31) routes on StorageVersion objects; any failed peer-address lookup is 503.
	EraSV Era = "SV"
	// EraSV2 (1.32) is SV, but 503 only when no peer address resolves.
	EraSV2 Era = "SV2"
	// EraDisc (1.33–1.34) routes on local and peer discovery; core group keyed "core".
	EraDisc Era = "DISC"
	// EraDiscAgg (1.35) adds peer-aggregated /apis and CRD/APIService exclusion; core keyed "".
	EraDiscAgg Era = "DISC+AGG"
	// EraDiscAgg2 (1.36+) is DISC+AGG, beta and on by default.
	EraDiscAgg2 Era = "DISC+AGG2"
)

// EraOf returns the era of a Kubernetes version. Versions newer than the newest known minor
// (1.37) are assumed to behave like it; the explanation says so.
func EraOf(v snapshot.Version) Era {
	if v.Major != 1 {
		return EraNone
	}
	switch m := v.Minor; {
	case m < 28:
		return EraNone
	case m <= 31:
		return EraSV
	case m == 32:
		return EraSV2
	case m <= 34:
		return EraDisc
	case m == 35:
		return EraDiscAgg
	default:
		return EraDiscAgg2
	}
}

// NewestKnownMinor is the newest minor version the spec covers.
const NewestKnownMinor = 37

// storageVersionEra reports whether the era routes on StorageVersion objects.
func (e Era) storageVersionEra() bool { return e == EraSV || e == EraSV2 }

// discoveryEra reports whether the era routes on discovery (1.33+).
func (e Era) discoveryEra() bool { return e == EraDisc || e == EraDiscAgg || e == EraDiscAgg2 }

// excludesCRDs reports whether CRD and aggregated APIService GVs are removed from peers'
// discovery (1.35+).
func (e Era) excludesCRDs() bool { return e == EraDiscAgg || e == EraDiscAgg2 }

// aggregatesDiscovery reports whether the default /apis is peer-aggregated (1.35+).
func (e Era) aggregatesDiscovery() bool { return e.excludesCRDs() }

// gateDefault is the UnknownVersionInteroperabilityProxy default: beta and on from 1.36.
func gateDefault(v snapshot.Version) bool { return v.Major == 1 && v.Minor >= 36 }

// coreKey is the group name the era's code uses for the core group in its routing key. It
// changes nothing about outcomes (local cache, peer cache and request use the same key) but
// is what a reader of the apiserver's logs sees.
func (e Era) coreKey() string {
	if e == EraDiscAgg || e == EraDiscAgg2 {
		return `""`
	}
	return `"core"`
}

func (e Era) describe(v snapshot.Version) string {
	s := fmt.Sprintf("%s era (%s)", e, v.MinorString())
	if v.Major == 1 && v.Minor > NewestKnownMinor {
		s += fmt.Sprintf(", assumed to behave like 1.%d", NewestKnownMinor)
	}
	return s
}
