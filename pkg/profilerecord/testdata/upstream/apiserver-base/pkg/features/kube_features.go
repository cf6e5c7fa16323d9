package features

const (
	UnknownVersionInteroperabilityProxy featuregate.Feature = "UnknownVersionInteroperabilityProxy"
	OldThing                            featuregate.Feature = "OldThing"
)

var defaultVersionedKubernetesFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	OldThing: {
		{Version: version.MustParse("1.33"), Default: true, PreRelease: featuregate.Deprecated, LockToDefault: true},
	},
	UnknownVersionInteroperabilityProxy: {
		{Version: version.MustParse("1.28"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.36"), Default: true, PreRelease: featuregate.Beta},
	},
}
