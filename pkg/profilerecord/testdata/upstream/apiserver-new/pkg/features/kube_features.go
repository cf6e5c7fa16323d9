package features

const (
	UnknownVersionInteroperabilityProxy featuregate.Feature = "UnknownVersionInteroperabilityProxy"
	NewThing                            featuregate.Feature = "NewThing"
)

var defaultVersionedKubernetesFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	NewThing: {
		{Version: version.MustParse("1.38"), Default: false, PreRelease: featuregate.Alpha},
	},
	UnknownVersionInteroperabilityProxy: {
		{Version: version.MustParse("1.28"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.36"), Default: true, PreRelease: featuregate.Beta},
		{Version: version.MustParse("1.40"), Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	},
}
