package snapshot

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// Resolved is the GVR a resource argument names, as the snapshot knows it.
type Resolved struct {
	GVR GVR
	// Namespaced is what the servers' discovery says; false when no server lists the GVR.
	Namespaced bool
	// Known is false when no reachable server serves the GVR or lists it in its
	// peer-aggregated discovery: its scope is then unknown.
	Known bool
	// Note says a choice was made (one version of several), for the user to read.
	Note string
}

// ResourceForms are the forms ResolveResource accepts, with examples, for help and errors.
const ResourceForms = "GROUP/VERSION/RESOURCE (batch/v1/jobs, v1/pods), RESOURCE.VERSION.GROUP (jobs.v1.batch), RESOURCE.GROUP (jobs.batch) or RESOURCE (jobs, pods)"

// ResolveResource finds the GVR arg names among what the reachable servers serve or list in
// their peer-aggregated discovery, in one of kubectl's forms: group/version/resource as
// mvpctl routes prints it (taken as it is, even when no server serves it),
// resource.version.group, resource.group or resource (any group; the core group first, as
// kubectl does), where the resource may also be named by a short name, its singular or its
// kind (cj, cronjob, CronJob: ResourceNames). Only the GVRs f selects are candidates ("" with a non-empty f: the one
// group/resource f selects). Of several versions the newest (Kubernetes order: v1 > v1beta2
// > v1alpha1) is taken, and Note says so; several groups are an error that lists them.
func (s *Snapshot) ResolveResource(arg string, f GVRFilter) (Resolved, error) {
	known := s.served()
	if f.Names == nil {
		f.Names = s.ResourceNames()
	}
	if strings.Contains(arg, "/") {
		return resolveGVR(arg, f, known)
	}
	var candidates []Resource
	for g, r := range known {
		if f.Match(g, r.Kind) && (arg == "" || matchesArg(g, arg, f.Names)) {
			candidates = append(candidates, r)
		}
	}
	if len(candidates) == 0 {
		return Resolved{}, s.noneServed(arg, f)
	}
	candidates, err := oneGroup(candidates, arg, f)
	if err != nil {
		return Resolved{}, err
	}
	return newestVersion(candidates, arg, f)
}

// resolveGVR resolves a group/version/resource written out, served or not.
func resolveGVR(arg string, f GVRFilter, known map[GVR]Resource) (Resolved, error) {
	g, err := ParseGVR(arg)
	if err != nil {
		return Resolved{}, fmt.Errorf("%q: want %s", arg, ResourceForms)
	}
	r, ok := known[g]
	if !f.Match(g, r.Kind) {
		return Resolved{}, fmt.Errorf("%s does not match %s", g, f)
	}
	return Resolved{GVR: g, Namespaced: r.Namespaced, Known: ok}, nil
}

// noneServed is the error for an argument and filter that select nothing served: the closest
// match the filter has, else what was asked and where the served ones are listed.
func (s *Snapshot) noneServed(arg string, f GVRFilter) error {
	if err := f.Unmatched(s.Known(), "the plane"); err != nil {
		return err
	}
	what := fmt.Sprintf("%q", arg)
	if arg == "" {
		what = f.String()
	} else if !f.Empty() {
		what += " with " + f.String()
	}
	if arg != "" && !strings.Contains(arg, ".") && !s.recordsCoreDiscovery() {
		what += " (nor names it so: this snapshot records no /api discovery document, which holds the core group's short names; name the resource, e.g. pods)"
	}
	return fmt.Errorf("no reachable server serves %s ('mvpctl routes --all' lists what they serve; name a GVR to explain one nobody serves, e.g. batch/v1/jobs)", what)
}

// oneGroup keeps the candidates of one group: a bare name means the core group's when it has
// one; candidates of several other groups are an error naming them.
func oneGroup(candidates []Resource, arg string, f GVRFilter) ([]Resource, error) {
	groups := map[string]bool{}
	for _, r := range candidates {
		groups[r.Group] = true
	}
	if len(groups) > 1 && groups[""] && arg != "" {
		// kubectl's order: a bare resource name means the core group's when it has one.
		candidates = slices.DeleteFunc(candidates, func(r Resource) bool { return r.Group != "" })
		groups = map[string]bool{"": true}
	}
	if len(groups) > 1 {
		var names []string
		for gr := range groups {
			names = append(names, candidates[0].Resource+"."+gr)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("%q names resources of %d groups: %s; name one", orFilter(arg, f), len(groups), strings.Join(names, ", "))
	}
	return candidates, nil
}

// newestVersion resolves the candidates of one group to the newest version of their one
// resource, with a note naming the others; several resources are an error naming them.
func newestVersion(candidates []Resource, arg string, f GVRFilter) (Resolved, error) {
	sort.Slice(candidates, func(i, j int) bool {
		if candidates[i].Resource != candidates[j].Resource {
			return candidates[i].Resource < candidates[j].Resource
		}
		return version.CompareKubeAwareVersionStrings(candidates[i].Version, candidates[j].Version) > 0
	})
	if candidates[0].Resource != candidates[len(candidates)-1].Resource {
		var names []string
		for _, r := range candidates {
			names = append(names, r.GVR().String())
		}
		return Resolved{}, fmt.Errorf("%s selects %d resources: %s; name one", orFilter(arg, f), len(candidates), strings.Join(names, ", "))
	}
	r := candidates[0]
	res := Resolved{GVR: r.GVR(), Namespaced: r.Namespaced, Known: true}
	if len(candidates) > 1 {
		var versions []string
		for _, c := range candidates {
			versions = append(versions, c.Version)
		}
		res.Note = fmt.Sprintf("%s: %s, the newest of the versions served (%s); name another as %s", orFilter(arg, f), r.GVR(), strings.Join(versions, ", "), (GVR{Group: r.Group, Version: candidates[1].Version, Resource: r.Resource}))
	}
	return res, nil
}

func orFilter(arg string, f GVRFilter) string {
	if arg == "" {
		return f.String()
	}
	return arg
}

// matchesArg: arg is resource, resource.group or resource.version.group naming g (kubectl's
// schema.ParseResourceArg, both readings of a three-part name), the resource by its name or
// one of names (a short name, its singular, its kind).
func matchesArg(g GVR, arg string, names ResourceNames) bool {
	full, gr := schema.ParseResourceArg(strings.ToLower(arg))
	if full != nil && full.Group == g.Group && full.Version == g.Version && names.name(full.Resource, g) {
		return true
	}
	return (gr.Group == "" || gr.Group == g.Group) && names.name(gr.Resource, g)
}

// served maps every GVR the reachable servers serve, or list in their peer-aggregated
// discovery, to its resource (kind and scope).
func (s *Snapshot) served() map[GVR]Resource {
	out := map[GVR]Resource{}
	for i := range s.Servers {
		srv := &s.Servers[i]
		if !srv.Reachable {
			continue
		}
		for _, list := range [][]Resource{srv.Resources, srv.PeerAggregated} {
			for _, r := range list {
				g := r.GVR()
				if cur, ok := out[g]; !ok || cur.Kind == "" {
					out[g] = r
				}
			}
		}
	}
	return out
}

// recordsCoreDiscovery reports whether every reachable server's /api document is recorded
// (older snapshots and profiles have none): the core group's short names are known.
func (s *Snapshot) recordsCoreDiscovery() bool {
	for i := range s.Servers {
		if s.Servers[i].Reachable && s.Servers[i].CoreAPI == nil {
			return false
		}
	}
	return true
}
