package mvp

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/version"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Custom resources. The apiextensions-apiserver serves a version of a CustomResourceDefinition
// only when spec.versions[] lists it with served: true; a request for any other version falls
// through to the next handler, a 404 (k8s.io/apiextensions-apiserver v0.37.1
// pkg/apiserver/customresource_handler.go:283-286 and :313-316). A request for a deprecated
// version gets a Warning header: the version's deprecationWarning when the CRD states one,
// else a default text (:1038-1045, defaultDeprecationWarning :1146-1163).

// CustomResourceVersionState is what a CRD's apiserver does with requests for one version.
type CustomResourceVersionState string

const (
	// CustomResourceServed: spec.versions[] lists it served and not deprecated.
	CustomResourceServed CustomResourceVersionState = "served"
	// CustomResourceDeprecated: served, with a Warning header on every request.
	CustomResourceDeprecated CustomResourceVersionState = "deprecated"
	// CustomResourceNotServed: listed with served: false; requests get 404.
	CustomResourceNotServed CustomResourceVersionState = "not-served"
	// CustomResourceAbsent: not in spec.versions[]; requests get 404.
	CustomResourceAbsent CustomResourceVersionState = "absent"
)

// Serves says requests for the version are served.
func (s CustomResourceVersionState) Serves() bool {
	return s == CustomResourceServed || s == CustomResourceDeprecated
}

// CustomResourceVersion is the state of one version of a CRD, and what a client moves to.
type CustomResourceVersion struct {
	State CustomResourceVersionState
	// Warning is the Warning header's text on each request of a deprecated version: the CRD's
	// deprecationWarning, else the apiserver's default; "" when none is sent (an empty
	// deprecationWarning, or a version not deprecated). Text from the cluster: data.
	Warning string
	// WarningStated says Warning is the CRD's own deprecationWarning, not the default.
	WarningStated bool
	// Served are the versions the CRD serves, by the apiserver's version priority (v1 before
	// v1beta1 before v1alpha1), those not deprecated first.
	Served []string
}

// Replacement is the version a client of a deprecated, unserved or absent version moves to:
// the first of Served that is not the version itself; "" when there is none.
func (v CustomResourceVersion) Replacement(version string) string {
	for _, s := range v.Served {
		if s != version {
			return s
		}
	}
	return ""
}

// CustomResourceVersionOf is what crd's apiserver does with requests for version.
func CustomResourceVersionOf(crd snapshot.CustomResourceDefinition, version string) CustomResourceVersion {
	out := CustomResourceVersion{State: CustomResourceAbsent}
	var current, deprecated []string
	for _, v := range crd.Versions {
		if v.Served {
			if v.Deprecated {
				deprecated = append(deprecated, v.Name)
			} else {
				current = append(current, v.Name)
			}
		}
		if v.Name != version {
			continue
		}
		switch {
		case !v.Served:
			out.State = CustomResourceNotServed
		case v.Deprecated:
			out.State = CustomResourceDeprecated
			if v.DeprecationWarning != nil {
				out.Warning, out.WarningStated = *v.DeprecationWarning, true
			} else {
				out.Warning = defaultDeprecationWarning(crd, version)
			}
		default:
			out.State = CustomResourceServed
		}
	}
	byPriority(current)
	byPriority(deprecated)
	out.Served = append(current, deprecated...)
	return out
}

// defaultDeprecationWarning is the apiserver's warning for a deprecated version whose CRD
// states none (customresource_handler.go:1146-1163): "<group>/<version> <Kind> is deprecated",
// then "; use <group>/<newer> <Kind>" naming the newest served, not deprecated version of a
// higher priority, if there is one.
func defaultDeprecationWarning(crd snapshot.CustomResourceDefinition, deprecated string) string {
	msg := fmt.Sprintf("%s/%s %s is deprecated", crd.Group, deprecated, crd.Kind)
	var newer []string
	for _, v := range crd.Versions {
		if v.Served && !v.Deprecated && version.CompareKubeAwareVersionStrings(deprecated, v.Name) < 0 {
			newer = append(newer, v.Name)
		}
	}
	if len(newer) == 0 {
		return msg
	}
	byPriority(newer)
	return msg + fmt.Sprintf("; use %s/%s %s", crd.Group, newer[0], crd.Kind)
}

// byPriority sorts versions by the apiserver's version priority, highest first.
func byPriority(vs []string) {
	sort.SliceStable(vs, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(vs[i], vs[j]) > 0 })
}
