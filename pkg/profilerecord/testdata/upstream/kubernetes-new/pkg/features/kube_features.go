package features

const (
	KubeThing featuregate.Feature = "KubeThing"
)

var defaultVersionedKubernetesFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	KubeThing: {
		{Version: version.MustParse("1.37"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.38"), Default: true, PreRelease: featuregate.Beta},
	},
}
