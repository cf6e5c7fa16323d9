package preflight

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/internal/textsafe"
	"github.com/mvpctl/mvpctl/pkg/lifecycle"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Objects of add-on APIs judged by the cluster's CustomResourceDefinitions: what each CRD
// states of the object's version (pkg/mvp's CustomResourceVersionOf). A CRD is the cluster's,
// in etcd, so every stage of an upgrade keeps it as it is.

// crdJudgement is what an object's CRD states of its version.
type crdJudgement struct {
	mvp.CustomResourceVersion
	crd snapshot.CustomResourceDefinition
	// replacement is "group/version Kind" of the version to move to, for a version deprecated or
	// not served; "" otherwise or when the CRD serves none.
	replacement string
}

// crdVersion is what the CRD of gvk's group and kind states of its version, when the cluster's
// CRDs were recorded and one is of that group and kind.
func (k *knownAPIs) crdVersion(gvk lifecycle.GVK) (crdJudgement, bool) {
	if gvk.Group == "" {
		return crdJudgement{}, false
	}
	d, ok := k.crds[[2]string{gvk.Group, gvk.Kind}]
	if !ok {
		return crdJudgement{}, false
	}
	j := crdJudgement{CustomResourceVersion: mvp.CustomResourceVersionOf(d, gvk.Version), crd: d}
	if r := j.Replacement(gvk.Version); r != "" && j.State != mvp.CustomResourceServed {
		j.replacement = lifecycle.GVK{Group: gvk.Group, Version: r, Kind: gvk.Kind}.String()
	}
	return j, true
}

// notServedText says that the CRD does not serve the version, and what it serves.
func (j crdJudgement) notServedText(version string) string {
	what := "has no version " + version
	if j.State == mvp.CustomResourceNotServed {
		what = "does not serve version " + version + " (served: false)"
	}
	serves := "serves no version"
	if len(j.Served) > 0 {
		serves = "serves " + strings.Join(j.Served, ", ")
	}
	return fmt.Sprintf("its CustomResourceDefinition %s %s and %s: applying them fails today and after the upgrade (the cluster's CRDs are the same at every stage)", j.crd.Name(), what, serves)
}

// crdDeprecatedText says that the CRD deprecates the row's version, with the apiserver's
// warning quoted as data (on one line, whatever it holds).
func crdDeprecatedText(r ObjectRow) string {
	_, version := lifecycle.SplitAPIVersion(r.APIVersion)
	s := fmt.Sprintf("its CustomResourceDefinition %s deprecates version %s", r.CRD, version)
	if r.Warning == "" {
		return s + " (its deprecationWarning is empty: requests get no warning)"
	}
	return s + `; each request gets the warning "` + textsafe.Visible(r.Warning) + `"`
}

// crdEvidence is what the judgement rests on: the CRD's versions, as the cluster states them.
func (k *knownAPIs) crdEvidence(r ObjectRow) string {
	g, v := lifecycle.SplitAPIVersion(r.APIVersion)
	j, ok := k.crdVersion(lifecycle.GVK{Group: g, Version: v, Kind: r.Kind})
	if !ok {
		return ""
	}
	var vs []string
	for _, v := range j.crd.Versions {
		var states []string
		if v.Served {
			states = append(states, "served")
		} else {
			states = append(states, "not served")
		}
		if v.Storage {
			states = append(states, "storage")
		}
		if v.Deprecated {
			states = append(states, "deprecated")
		}
		vs = append(vs, v.Name+" ("+strings.Join(states, ", ")+")")
	}
	return fmt.Sprintf("crd: %s spec.versions %s, from the cluster's CustomResourceDefinitions", j.crd.Name(), strings.Join(vs, ", "))
}

// crdsUnreadText says the cluster's CRD list was not read, and why.
func crdsUnreadText(why string) string {
	return "the cluster's CustomResourceDefinitions were not read (" + why + ")"
}

// crdsNotRead is the partial read of a run whose CRD list was not read (why) while objects
// of groups no one knows were judged: unjudged of them were not.
type crdsNotRead struct {
	why      string
	unjudged int
}

func (c crdsNotRead) String() string {
	return fmt.Sprintf("%s: %d object(s) of add-on APIs not judged", crdsUnreadText(c.why), c.unjudged)
}

// crdsUnreadPartial is the partial read of a run whose CRD list was not read while objects of
// groups no one knows were judged; partial is false when that is not so.
func (k *knownAPIs) crdsUnreadPartial(rows []ObjectRow) (c crdsNotRead, partial bool) {
	if k.crdsUnread == "" {
		return c, false
	}
	c.why = k.crdsUnread
	for _, r := range rows {
		if r.Verdict == ObjectNotJudged {
			c.unjudged++
		}
	}
	return c, c.unjudged > 0
}

// unjudgedWithoutCRDs says why gvk is not judged when the cluster's CRD list was not read and
// its group may be a CRD's: not a group of a kube-apiserver binary (the lifecycle table's and
// the recorded profiles'), nor an aggregated API's. Discovery alone would mislead there: the
// rehearsed upgrade cannot tell the cluster's CRDs, which every stage keeps, from the binary's
// APIs. "" when it is judged.
func (k *knownAPIs) unjudgedWithoutCRDs(gvk lifecycle.GVK) string {
	if k.crdsUnread == "" || k.aggregated[gvk.APIVersion()] || profile.BuiltinGroup(gvk.Group) {
		return ""
	}
	return fmt.Sprintf("group %s is not a built-in API, and %s", gvk.Group, crdsUnreadText(k.crdsUnread))
}
