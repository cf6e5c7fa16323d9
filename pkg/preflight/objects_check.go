package preflight

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/lifecycle"
	"github.com/mvpctl/mvpctl/pkg/replay"
)

// The checks of the objects of --manifests and of the Helm releases (objects.go).
var (
	CheckObjectServed     = Check{"MVP070", "object-api-served", "every object of --manifests, the Helm releases and the live objects read (by their last-applied-configuration) is of an apiVersion and kind the start, every step and the target serve"}
	CheckObjectKnown      = Check{"MVP071", "object-api-known", "every object's apiVersion and kind is one an apiserver or k8s.io/api knows (no misspelling)"}
	CheckObjectJudged     = Check{"MVP072", "object-api-judged", "every object's group is known to k8s.io/api or the cluster (its CRDs and APIServices)"}
	CheckObjectDeprecated = Check{"MVP073", "object-api-deprecated", "no object is of an API the target deprecates (info)"}
	CheckManifestsRead    = Check{"MVP074", "manifests-readable", "every manifest document parses"}
)

// objectChecks are the checks of objects: they apply when some manifest was read.
var objectChecks = []Check{CheckObjectServed, CheckObjectKnown, CheckObjectJudged, CheckObjectDeprecated, CheckManifestsRead}

func init() {
	Checks = append(Checks, objectChecks...)
	upgradeUnits = append(upgradeUnits, unit{objectChecks, func(p *pass) ([]Finding, bool) {
		if len(p.o.manifestReads) == 0 {
			return nil, false
		}
		return p.objectFindings(), true
	}})
}

// verdictRank orders the summary's counts.
var verdictRank = map[ObjectVerdict]int{ObjectServed: 0, ObjectDeprecated: 1, ObjectRemoved: 2, ObjectNotServed: 3, ObjectMisspelt: 4, ObjectUnknownKind: 5, ObjectNotJudged: 6}

// verdictCheck is the check that reports a verdict.
func verdictCheck(v ObjectVerdict) Check {
	switch v {
	case ObjectRemoved, ObjectNotServed:
		return CheckObjectServed
	case ObjectMisspelt, ObjectUnknownKind:
		return CheckObjectKnown
	case ObjectNotJudged:
		return CheckObjectJudged
	}
	return CheckObjectDeprecated
}

// maxLocations is how many objects a finding names (the rows name every one).
const maxLocations = 10

// objectFindings judges every object read, fills the report's rows and summary, and returns
// one finding per apiVersion, kind and verdict (served objects have none) and one per
// document that does not parse (each also a partial read: the verdict fails closed).
func (p *pass) objectFindings() []Finding {
	tab, err := lifecycle.Load()
	if err != nil {
		return []Finding{{Check: CheckObjectJudged.ID, Name: CheckObjectJudged.Name, Severity: Warning, Subject: "lifecycle", Message: err.Error()}}
	}
	st := stages(p.sim)
	known := newKnownAPIs(tab, st, p.o.Start.Cluster)
	sum := &ObjectsSummary{Counts: []ObjectCount{}}
	var out []Finding
	type key struct {
		verdict          ObjectVerdict
		apiVersion, kind string
	}
	groups := map[key][]ObjectRow{}
	var order []key
	counts := map[ObjectCount]int{}
	var countOrder []ObjectCount
	p.rep.Objects = []ObjectRow{}
	for _, read := range p.o.manifestReads {
		sum.Files += read.Files
		if read.Path == SourceLive && read.Files == 0 { // a manifest path "live" with objects has files
			sum.Live += len(read.Objects)
		}
		sum.Skipped += len(read.Skipped)
		for _, f := range read.Skipped {
			if len(sum.SkippedFiles) < maxSkippedNamed {
				sum.SkippedFiles = append(sum.SkippedFiles, f)
			}
		}
		sum.Unreadable += len(read.Problems)
		for _, pr := range read.Problems {
			out = append(out, problemFinding(pr))
			p.rep.RestsOn = p.rep.RestsOn.WithReads(manifestUnparsed{where: pr.Where()})
		}
		for _, o := range read.Objects {
			row := judge(o, read.Path, st, known)
			p.rep.Objects = append(p.rep.Objects, row)
			c := ObjectCount{Verdict: row.Verdict}
			switch row.Verdict {
			case ObjectRemoved:
				c.Release = row.Removed
			case ObjectDeprecated:
				c.Release = row.Deprecated
			}
			if counts[c] == 0 {
				countOrder = append(countOrder, c)
			}
			counts[c]++
			if row.Verdict == ObjectServed {
				continue
			}
			k := key{row.Verdict, row.APIVersion, row.Kind}
			if groups[k] == nil {
				order = append(order, k)
			}
			groups[k] = append(groups[k], row)
		}
	}
	sum.Objects = len(p.rep.Objects)
	if why, partial := known.crdsUnreadPartial(p.rep.Objects); partial {
		p.rep.RestsOn = p.rep.RestsOn.WithReads(why)
	}
	sum.Counts = sortedCounts(counts, countOrder)
	p.rep.ObjectsSummary = sum
	for _, k := range order {
		out = append(out, objectFinding(groups[k], st, known))
	}
	return out
}

// manifestUnparsed is a manifest that does not parse (where says which, and where in it): a
// partial read of the objects to judge.
type manifestUnparsed struct{ where string }

func (m manifestUnparsed) String() string { return "manifest " + m.where + " does not parse" }

// sortedCounts are the summary's counts, by verdict, then release.
func sortedCounts(counts map[ObjectCount]int, order []ObjectCount) []ObjectCount {
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.Verdict != b.Verdict {
			return verdictRank[a.Verdict] < verdictRank[b.Verdict]
		}
		ra, _ := lifecycle.ParseRelease(a.Release)
		rb, _ := lifecycle.ParseRelease(b.Release)
		return ra.Before(rb)
	})
	out := []ObjectCount{}
	for _, c := range order {
		c.N = counts[c]
		out = append(out, c)
	}
	return out
}

// objectFinding is the finding of the objects of one apiVersion, kind and verdict.
func objectFinding(rows []ObjectRow, st []stage, known *knownAPIs) Finding {
	r := rows[0]
	c := verdictCheck(r.Verdict)
	f := Finding{Check: c.ID, Name: c.Name, Severity: r.Verdict.severity(), Subject: r.APIVersion + " " + r.Kind}
	n := fmt.Sprintf("%d object(s) of %s %s", len(rows), r.APIVersion, r.Kind)
	life := lifecycleText(r)
	switch r.Verdict {
	case ObjectRemoved:
		dep := ""
		if r.Deprecated != "" {
			dep = " (deprecated in " + r.Deprecated + ")"
		}
		f.Message = fmt.Sprintf("%s: Kubernetes removed it in %s%s; %s", n, r.Removed, dep, notServedText(r, st))
		f.Hint = replacementHint(r, "move them to a served apiVersion before the upgrade (a manifest is applied again after it)")
	case ObjectNotServed:
		why := r.Why
		if why == "" {
			why = notServedText(r, st) + " (no apiserver's discovery lists it)"
			if r.Lifecycle != "" {
				why += life
			}
		}
		f.Message = fmt.Sprintf("%s: %s", n, why)
		f.Hint = replacementHint(r, "move them to an apiVersion every stage serves, or enable it with --runtime-config on every apiserver")
		if r.CRD != "" && r.Replacement == "" {
			f.Hint = "serve a version of " + r.CRD + " (spec.versions[].served) and move them to it"
		}
	case ObjectMisspelt:
		f.Message = fmt.Sprintf("%s: no apiserver serves it and k8s.io/api does not know it; the closest known spelling is %s", n, r.Closest)
		if r.Why != "" {
			f.Message += ", " + r.Why
		}
		f.Hint = "correct the apiVersion or kind (the closest known spelling is " + r.Closest + ")"
		if r.Why != "" {
			f.Hint += "; that one is " + r.Why
		}
	case ObjectUnknownKind:
		f.Message = fmt.Sprintf("%s: %s has no kind %s (no apiserver serves it, k8s.io/api does not know it), so applying them fails", n, r.APIVersion, r.Kind)
		f.Hint = "check the kind's spelling: `mvpctl apis` lists the known ones"
	case ObjectNotJudged:
		f.Message = fmt.Sprintf("%s: not judged: %s", n, r.Why)
		f.Hint = "preflight a live cluster or a snapshot of it (which records its CRDs and APIServices) to judge add-on APIs"
		if known.crdsUnread != "" {
			f.Hint = "grant list on customresourcedefinitions (the ClusterRole mvpctl in deploy/rbac/mvpctl-clusterrole.yaml) to judge add-on APIs"
		}
	case ObjectDeprecated:
		f.Message = fmt.Sprintf("%s: served by every stage, but deprecated since %s%s", n, r.Deprecated, life)
		f.Hint = replacementHint(r, "move them to a current apiVersion before a release removes it")
		if r.CRD != "" {
			f.Message = fmt.Sprintf("%s: served by every stage, but %s", n, r.Why)
			f.Hint = replacementHint(r, "its CRD serves no other version: follow its deprecation warning, or ask the add-on's maintainers what replaces it")
		}
	}
	var where []string
	for i, o := range rows {
		if i == maxLocations {
			where = append(where, fmt.Sprintf("… %d more (the object rows name every one)", len(rows)-i))
			break
		}
		w := o.Where()
		if o.Template != "" {
			w += " (template " + o.Template + ")"
		}
		if name := o.ObjectName(); name != "" {
			w += " " + name
		}
		where = append(where, w)
	}
	f.Evidence = append([]string{"objects: " + strings.Join(where, ", ")}, servedEvidence(st))
	if r.Lifecycle != "" {
		f.Evidence = append(f.Evidence, "lifecycle: "+r.Lifecycle+" (zz_generated.prerelease-lifecycle.go)")
	}
	if r.CRD != "" {
		f.Evidence = append(f.Evidence, known.crdEvidence(r))
	}
	return f
}

// notServedText says which stages do not serve the row's apiVersion and kind: "neither the
// start (1.36) nor the target (1.37) serves it", "from step 2 (…) on, it is not served".
func notServedText(r ObjectRow, st []stage) string {
	g, v := lifecycle.SplitAPIVersion(r.APIVersion)
	gvk := lifecycle.GVK{Group: g, Version: v, Kind: r.Kind}
	var not []string
	for _, s := range st {
		if !s.served[gvk] {
			not = append(not, s.name)
		}
	}
	start, target := st[0], st[len(st)-1]
	switch {
	case len(not) == len(st):
		return fmt.Sprintf("neither the start (%s) nor any step up to the target (%s) serves it: applying them fails today and after the upgrade", start.release, target.release)
	case !target.served[gvk] && start.served[gvk]:
		return fmt.Sprintf("the start (%s) serves it, but %s does not: applying them fails from then on", start.release, not[0])
	}
	return "not served by " + strings.Join(not, ", ") + ": applying them fails there"
}

// lifecycleText is "(deprecated in 1.14, removed in 1.22)" of what the row states.
func lifecycleText(r ObjectRow) string {
	var parts []string
	if r.Deprecated != "" {
		parts = append(parts, "deprecated in "+r.Deprecated)
	}
	if r.Removed != "" {
		parts = append(parts, "removed in "+r.Removed)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func replacementHint(r ObjectRow, otherwise string) string {
	switch {
	case r.Replacement != "" && r.CRD != "":
		return "use " + r.Replacement + " instead (a version its CRD serves; check the CRD's conversion of the fields)"
	case r.Replacement != "":
		return "use " + r.Replacement + " instead (Kubernetes' stated replacement; `kubectl convert` or a hand edit)"
	}
	return otherwise
}

// servedEvidence says what "served" rests on: each stage's discovery.
func servedEvidence(st []stage) string {
	return fmt.Sprintf("served: what the apiservers' discovery lists at the start, each step and the target (%d stage(s), the target at %s)", len(st), st[len(st)-1].release)
}

// problemFinding is a document that does not parse.
func problemFinding(pr replay.ManifestProblem) Finding {
	f := Finding{Check: CheckManifestsRead.ID, Name: CheckManifestsRead.Name, Severity: Warning, Subject: pr.Where(),
		Message:  "does not parse: " + pr.Message + "; its objects are not judged (the rest of the input is)",
		Evidence: []string{"manifest " + pr.Where()},
		Hint:     "fix the YAML at this line and column"}
	if pr.Template {
		f.Hint = replay.RenderHint
	}
	return f
}
