package snapshot

import (
	"strings"
)

// GVRFilter selects GVRs as the --resource and --group flags of every command say: a GVR
// matches when it matches one of Resources (or Resources is empty) and one of Groups (or
// Groups is empty). probe, routes, explain, simulate and preflight share it, so the flags mean
// the same everywhere.
type GVRFilter struct {
	// Resources select by resource ("jobs"), resource.group ("jobs.batch"),
	// group/version/resource ("batch/v1/jobs", "v1/pods"), kind ("Job"), short name or
	// singular ("cj", "cronjob"; with Names), case-insensitively except the
	// group/version/resource form.
	Resources []string
	// Groups select by group ("batch"; "core" or `""` for the core group).
	Groups []string
	// Names are the other names of resources (short names, singulars, kinds) a Resources
	// entry may use: Snapshot.ResourceNames. Without them only names and kinds match.
	Names ResourceNames
}

// Empty reports whether the filter selects every GVR.
func (f GVRFilter) Empty() bool { return len(f.Resources) == 0 && len(f.Groups) == 0 }

// Match reports whether the filter selects g, whose kind is kind ("" when unknown).
func (f GVRFilter) Match(g GVR, kind string) bool {
	return f.matchResource(g, kind) && f.MatchGroup(g.Group)
}

// MatchGroup reports whether --group selects group ("" is the core group); --resource is
// not looked at: for what concerns a whole group (a --runtime-config entry).
func (f GVRFilter) MatchGroup(group string) bool {
	if len(f.Groups) == 0 {
		return true
	}
	for _, want := range f.Groups {
		want = strings.TrimSpace(want)
		if want == group || (group == "" && (want == "core" || want == `""`)) {
			return true
		}
	}
	return false
}

func (f GVRFilter) matchResource(g GVR, kind string) bool {
	if len(f.Resources) == 0 {
		return true
	}
	for _, want := range f.Resources {
		want = strings.TrimSpace(want)
		if p, err := ParseGVR(want); err == nil && p == g {
			return true
		}
		// RESOURCE, RESOURCE.GROUP, RESOURCE.VERSION.GROUP: as explain reads its argument.
		if matchesArg(g, want, f.Names) || (kind != "" && strings.EqualFold(want, kind)) {
			return true
		}
	}
	return false
}

// String describes the filter for reports and errors: "resource jobs; group batch".
func (f GVRFilter) String() string {
	var parts []string
	if len(f.Resources) > 0 {
		parts = append(parts, "resource "+strings.Join(f.Resources, ","))
	}
	if len(f.Groups) > 0 {
		parts = append(parts, "group "+strings.Join(f.Groups, ","))
	}
	return strings.Join(parts, "; ")
}

// Kinds maps every GVR the reachable servers serve, or list in their peer-aggregated
// discovery, to its kind: what a filter by kind needs where only the GVR is at hand. Each
// group/resource is also listed without its version, so that another version of it (one an
// upgrade brings) has the kind too (MatchName).
func (s *Snapshot) Kinds() map[GVR]string {
	kinds := map[GVR]string{}
	for g, r := range s.served() {
		if r.Kind != "" {
			kinds[g] = r.Kind
			kinds[GVR{Group: g.Group, Resource: g.Resource}] = r.Kind
		}
	}
	return kinds
}

// MatchGroupOf reports whether the filter selects a group as a whole (what concerns every
// resource of it, a --runtime-config entry): --group selects it, and --resource, if given,
// selects one of its resources that kinds lists.
func (f GVRFilter) MatchGroupOf(group string, kinds map[GVR]string) bool {
	if !f.MatchGroup(group) {
		return false
	}
	if len(f.Resources) == 0 {
		return true
	}
	for g, kind := range kinds {
		if g.Group == group && g.Version != "" && f.Match(g, kind) {
			return true
		}
	}
	return false
}

// MatchName is Match for a GVR in its printed form ("batch/v1/jobs"), its kind looked up in
// kinds. A name that is not a GVR matches only an empty filter.
func (f GVRFilter) MatchName(name string, kinds map[GVR]string) bool {
	if f.Empty() {
		return true
	}
	g, err := ParseGVR(name)
	if err != nil {
		return false
	}
	kind, ok := kinds[g]
	if !ok {
		kind = kinds[GVR{Group: g.Group, Resource: g.Resource}]
	}
	return f.Match(g, kind)
}
