package mvp

import "regexp"

// What a kube-apiserver started with its defaults serves and enables, as far as it can be told
// from outside: a version profile must describe the defaults (`mvpctl profiles record` warns when
// a server shows it was started otherwise).

// prereleaseVersion matches an alpha or beta API version: v1alpha1, v2beta3.
var prereleaseVersion = regexp.MustCompile(`^v[0-9]+(alpha|beta)[0-9]*$`)

// PrereleaseAPIVersion reports whether an API version (v1beta1) is alpha or beta. None is served
// by a default kube-apiserver: alpha APIs are always off by default, and since 1.24 (KEP-3136)
// so is every new beta API; the recorded default servers of 1.33–1.37 serve none
// (pkg/profile/profiles). A server that serves one was started with --runtime-config.
func PrereleaseAPIVersion(version string) bool { return prereleaseVersion.MatchString(version) }

// FeatureEnabledMetric is the gauge in which a component reports each feature gate: labels name
// and stage (ALPHA, BETA, DEPRECATED, or empty for GA), value 1 when enabled.
const FeatureEnabledMetric = "kubernetes_feature_enabled"

// Feature gate stages as FeatureEnabledMetric labels them (k8s.io/component-base/featuregate).
const (
	StageAlpha = "ALPHA"
	StageGA    = ""
)

// GateNotDefault reports whether a feature gate of stage that is enabled (or not) cannot be at
// its default: alpha gates are off by default and GA gates on. A beta or deprecated gate's
// default can be either, so its state proves nothing.
func GateNotDefault(stage string, enabled bool) bool {
	switch stage {
	case StageAlpha:
		return enabled
	case StageGA:
		return !enabled
	}
	return false
}

// FeatureGate is the Mixed Version Proxy's feature gate (its default: GateDefault).
const FeatureGate = "UnknownVersionInteroperabilityProxy"
