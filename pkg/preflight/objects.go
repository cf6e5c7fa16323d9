package preflight

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/lifecycle"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Every object of --manifests and of the Helm releases judged on its apiVersion and kind:
// served by the start, by every step and by the target (what the servers' discovery lists),
// and what Kubernetes states of its lifecycle (pkg/lifecycle).

// ObjectVerdict is what became of one object.
type ObjectVerdict string

const (
	// ObjectServed: every stage of the upgrade serves its apiVersion and kind.
	ObjectServed ObjectVerdict = "served"
	// ObjectDeprecated: served throughout, deprecated by the target's release.
	ObjectDeprecated ObjectVerdict = "deprecated"
	// ObjectRemoved: some stage does not serve it, and Kubernetes removed it by the target.
	ObjectRemoved ObjectVerdict = "removed"
	// ObjectNotServed: some stage does not serve it (not removed by Kubernetes: off by
	// default, not yet introduced, or a custom resource's version not served).
	ObjectNotServed ObjectVerdict = "not-served"
	// ObjectMisspelt: its apiVersion or kind is a short edit away from a known one.
	ObjectMisspelt ObjectVerdict = "misspelt"
	// ObjectUnknownKind: its group/version is known, and has no such kind.
	ObjectUnknownKind ObjectVerdict = "unknown-kind"
	// ObjectNotJudged: its group is known to neither the lifecycle table nor the cluster.
	ObjectNotJudged ObjectVerdict = "not-judged"
)

// severity is the verdict's severity; "" for a served object (no finding).
func (v ObjectVerdict) severity() Severity {
	switch v {
	case ObjectRemoved, ObjectNotServed, ObjectMisspelt, ObjectUnknownKind:
		return Blocking
	case ObjectNotJudged:
		return Warning
	case ObjectDeprecated:
		return Info
	}
	return ""
}

// ObjectRow is one object and its verdict.
type ObjectRow struct {
	// Source is the input it was read from: a --manifests path, a Helm release, or "live" (a
	// live object, by its last-applied-configuration).
	Source string `json:"source"`
	// File and Line are where its apiVersion is written; Template the chart template of a
	// `# Source:` comment.
	File       string        `json:"file"`
	Line       int           `json:"line"`
	Template   string        `json:"template,omitempty"`
	Namespace  string        `json:"namespace,omitempty"`
	Name       string        `json:"name,omitempty"`
	Kind       string        `json:"kind"`
	APIVersion string        `json:"apiVersion"`
	Verdict    ObjectVerdict `json:"verdict"`
	// Deprecated and Removed are the releases Kubernetes deprecated and removed it in;
	// Replacement is what it states replaces it (all from Lifecycle).
	Deprecated  string `json:"deprecated,omitempty"`
	Removed     string `json:"removed,omitempty"`
	Replacement string `json:"replacement,omitempty"`
	// Lifecycle is the module the lifecycle was read from (k8s.io/api@vX.Y.Z).
	Lifecycle string `json:"lifecycle,omitempty"`
	// NotServedBy is the first stage that does not serve it ("the start", "step 2 (…)", "the
	// target").
	NotServedBy string `json:"notServedBy,omitempty"`
	// Closest is the known apiVersion and kind closest to a misspelt or unknown one.
	Closest string `json:"closest,omitempty"`
	// Why says why an object was not judged, or what its CRD states of a version it does not
	// serve or deprecates.
	Why string `json:"why,omitempty"`
	// CRD is the CustomResourceDefinition (plural.group) whose spec.versions judged it, when
	// the cluster's CRDs were read; Warning the apiserver's Warning header on each request of
	// a version it deprecates (the CRD's deprecationWarning, else the default text).
	CRD     string `json:"crd,omitempty"`
	Warning string `json:"warning,omitempty"`
}

// Where is FILE:LINE; "live" for a live object.
func (o ObjectRow) Where() string {
	if o.Source == SourceLive && o.Line == 0 { // a manifest's object is on a line, from 1
		return SourceLive
	}
	return fmt.Sprintf("%s:%d", o.File, o.Line)
}

// ObjectName is NAMESPACE/NAME (NAME for an object without a namespace).
func (o ObjectRow) ObjectName() string {
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}

// stage is the plane at one moment of the upgrade: what its servers serve, and its newest release.
type stage struct {
	name    string
	served  map[lifecycle.GVK]bool
	release lifecycle.Release
}

// stages are the start, each step and the target of sim (the last step is the target).
func stages(sim *simulate.Simulation) []stage {
	var out []stage
	for i := range sim.Steps {
		st := &sim.Steps[i]
		name := fmt.Sprintf("step %d (%s)", st.N, st.Step)
		switch {
		case i == 0:
			name = "the start"
		case i == len(sim.Steps)-1:
			name = "the target (" + name + ")"
		}
		out = append(out, stageOf(name, st.Snapshot()))
	}
	return out
}

func stageOf(name string, snap *snapshot.Snapshot) stage {
	s := stage{name: name, served: map[lifecycle.GVK]bool{}}
	if snap == nil {
		return s
	}
	for _, srv := range snap.Servers {
		if v, err := lifecycle.ParseRelease(srv.Version); err == nil && s.release.Before(v) {
			s.release = v
		}
		for _, r := range srv.Resources {
			if r.Kind != "" && !strings.Contains(r.Resource, "/") {
				s.served[lifecycle.GVK{Group: r.Group, Version: r.Version, Kind: r.Kind}] = true
			}
		}
	}
	return s
}

// knownAPIs is every group, version and kind the judgement knows: the lifecycle table's, what
// any stage serves, and the cluster's CRD and APIService group/versions (whose kinds a
// snapshot may not hold).
type knownAPIs struct {
	tab *lifecycle.Table
	// kinds are the kinds of each apiVersion; versions the versions of each group.
	kinds    map[string]map[string]bool
	versions map[string]map[string]bool
	// external are the group/versions of CRDs and APIServices.
	external map[string]bool
	// judged are the verdicts decided, by apiVersion and kind.
	judged map[[2]string]ObjectRow
	// crds are the cluster's CRDs by group and kind, when recorded
	// (snapshot.Cluster.CustomResourceDefinitionsRecorded); crdsUnread why the cluster's CRD
	// list was not read, when a live read tried and failed.
	crds       map[[2]string]snapshot.CustomResourceDefinition
	crdsUnread string
	// aggregated are the group/versions of APIServices with a service (the list was read).
	aggregated map[string]bool
}

func newKnownAPIs(tab *lifecycle.Table, stages []stage, cluster snapshot.Cluster) *knownAPIs {
	k := &knownAPIs{tab: tab, kinds: map[string]map[string]bool{}, versions: map[string]map[string]bool{}, external: map[string]bool{}, judged: map[[2]string]ObjectRow{}}
	add := func(g lifecycle.GVK) {
		gv := g.APIVersion()
		if k.kinds[gv] == nil {
			k.kinds[gv] = map[string]bool{}
		}
		if g.Kind != "" {
			k.kinds[gv][g.Kind] = true
		}
		if k.versions[g.Group] == nil {
			k.versions[g.Group] = map[string]bool{}
		}
		k.versions[g.Group][g.Version] = true
	}
	for _, r := range tab.Rows {
		add(r.GVK)
	}
	for _, s := range stages {
		for g := range s.served {
			add(g)
		}
	}
	gvs := append(append([]string(nil), cluster.CustomResourceGroupVersions...), cluster.AggregatedGroupVersions...)
	for _, a := range cluster.APIServices {
		gvs = append(gvs, lifecycle.GVK{Group: a.Group, Version: a.Version}.APIVersion())
	}
	for _, gv := range gvs {
		g, v := lifecycle.SplitAPIVersion(gv)
		add(lifecycle.GVK{Group: g, Version: v})
		k.external[gv] = true
	}
	if l := cluster.ListsRead; l != nil && !l.CustomResourceDefinitions {
		k.crdsUnread = orNone(l.CustomResourceDefinitionsError)
		k.aggregated = map[string]bool{}
		for _, gv := range cluster.AggregatedGroupVersions {
			k.aggregated[gv] = true
		}
	}
	if cluster.CustomResourceDefinitionsRecorded() {
		k.crds = map[[2]string]snapshot.CustomResourceDefinition{}
		for _, d := range cluster.CustomResourceDefinitions {
			if _, dup := k.crds[[2]string{d.Group, d.Kind}]; !dup {
				k.crds[[2]string{d.Group, d.Kind}] = d
			}
			for _, v := range d.Versions {
				add(lifecycle.GVK{Group: d.Group, Version: v.Name, Kind: d.Kind})
			}
		}
	}
	return k
}

// judge decides one object's verdict: that of its apiVersion and kind (decided once per pair).
func judge(o replay.ManifestObject, source string, stages []stage, known *knownAPIs) ObjectRow {
	k := [2]string{o.APIVersion, o.Kind}
	row, ok := known.judged[k]
	if !ok {
		row = judgeAPI(o.APIVersion, o.Kind, stages, known)
		known.judged[k] = row
	}
	row.Source, row.File, row.Line, row.Template, row.Namespace, row.Name = source, o.File, o.Line, o.Template, o.Namespace, o.Name
	return row
}

// judgeAPI decides the verdict of an apiVersion and kind.
func judgeAPI(apiVersion, kind string, stages []stage, known *knownAPIs) ObjectRow {
	row := ObjectRow{Kind: kind, APIVersion: apiVersion}
	group, version := lifecycle.SplitAPIVersion(apiVersion)
	gvk := lifecycle.GVK{Group: group, Version: version, Kind: kind}
	// The lifecycle is Kubernetes' of its built-in types, or a CRD's of its own.
	crd, byCRD := known.crdVersion(gvk)
	lc, inTable := known.tab.Lookup(gvk)
	inTable = inTable && !byCRD
	if inTable {
		row.Deprecated, row.Removed, row.Lifecycle = lc.Deprecated.String(), lc.Removed.String(), lc.Source
		if lc.Replacement != nil {
			row.Replacement = lc.Replacement.String()
		}
	}
	if byCRD {
		row.CRD, row.Replacement = crd.crd.Name(), crd.replacement
		if !crd.State.Serves() {
			row.Verdict, row.NotServedBy, row.Why = ObjectNotServed, stages[0].name, crd.notServedText(version)
			return row
		}
		row.Warning = crd.Warning
	}
	if why := known.unjudgedWithoutCRDs(gvk); why != "" {
		row.Verdict, row.Why = ObjectNotJudged, why
		return row
	}
	servedSomewhere := false
	for _, s := range stages {
		if s.served[gvk] {
			servedSomewhere = true
		} else if row.NotServedBy == "" {
			row.NotServedBy = s.name
		}
	}
	if servedSomewhere || inTable {
		target := stages[len(stages)-1].release
		switch {
		case row.NotServedBy == "" && byCRD && crd.State == mvp.CustomResourceDeprecated:
			row.Verdict = ObjectDeprecated
			row.Why = crdDeprecatedText(row)
		case row.NotServedBy == "" && inTable && lc.At(target) == lifecycle.Deprecated:
			row.Verdict = ObjectDeprecated
		case row.NotServedBy == "":
			row.Verdict = ObjectServed
		case inTable && lc.At(target) == lifecycle.Removed:
			row.Verdict = ObjectRemoved
		default:
			row.Verdict = ObjectNotServed
		}
		return row
	}
	return judgeUnserved(row, gvk, stages, known)
}

// judgeUnserved decides the verdict of an apiVersion and kind no stage serves and k8s.io/api
// states no lifecycle for: of an unknown kind, misspelt, not served, or not judged.
func judgeUnserved(row ObjectRow, gvk lifecycle.GVK, stages []stage, known *knownAPIs) ObjectRow {
	o := replay.ManifestObject{APIVersion: row.APIVersion, Kind: row.Kind}
	group, version := gvk.Group, gvk.Version
	row.NotServedBy = ""
	switch {
	case known.kinds[o.APIVersion] != nil:
		kinds := known.kinds[o.APIVersion]
		if len(kinds) == 0 && known.external[o.APIVersion] {
			row.Verdict, row.Why = ObjectNotJudged, "the snapshot does not hold the kinds of "+o.APIVersion+" (a CRD or APIService)"
			return row
		}
		row.Verdict = ObjectUnknownKind
		if k := closest(o.Kind, keys(kinds)); k != "" {
			row.Verdict, row.Closest = ObjectMisspelt, o.APIVersion+" "+k
			row.Why = known.closestLifecycle(row.Closest, stages[len(stages)-1].release)
		}
	case known.versions[group] != nil:
		row.Verdict, row.Why = ObjectNotServed, fmt.Sprintf("no apiserver serves, and k8s.io/api has no, version %s of group %s: applying them fails", version, orCore(group))
		row.NotServedBy = stages[0].name
		if v := closest(version, keys(known.versions[group])); v != "" {
			row.Verdict, row.Why, row.NotServedBy = ObjectMisspelt, "", ""
			row.Closest = known.closestKind(lifecycle.GVK{Group: group, Version: v, Kind: o.Kind})
			row.Why = known.closestLifecycle(row.Closest, stages[len(stages)-1].release)
		}
	default:
		var groups []string
		for g := range known.versions {
			if g != "" {
				groups = append(groups, g)
			}
		}
		if g := closest(group, groups); g != "" && group != "" {
			v := version
			if !known.versions[g][v] {
				v = closestOr(version, keys(known.versions[g]))
			}
			row.Verdict, row.Closest = ObjectMisspelt, known.closestKind(lifecycle.GVK{Group: g, Version: v, Kind: o.Kind})
			row.Why = known.closestLifecycle(row.Closest, stages[len(stages)-1].release)
			return row
		}
		row.Verdict = ObjectNotJudged
		row.Why = fmt.Sprintf("group %s is neither a built-in API (k8s.io/api's lifecycle) nor served by a CRD or APIService of the start", orCore(group))
		if known.crdsUnread != "" {
			row.Why += "; " + crdsUnreadText(known.crdsUnread)
		}
	}
	return row
}
