package snapshot

import (
	"fmt"
	"sort"
	"strings"
)

// Known maps every GVR the reachable servers serve, or list in their peer-aggregated
// discovery, to its kind ("" when unknown): what a --resource/--group filter may select.
func (s *Snapshot) Known() map[GVR]string {
	out := map[GVR]string{}
	for g, r := range s.served() {
		out[g] = r.Kind
	}
	return out
}

// Unmatched is the error of a filter that selects none of known (each GVR with its kind): a
// typo must not read as "nothing at risk". Each --resource and --group entry is checked
// alone, so the error names the entry that matches nothing and the closest name known; then
// the entries together. where says what known holds ("the plane, the profiles and the
// replayed traffic"). nil for an empty filter, or one that selects something.
func (f GVRFilter) Unmatched(known map[GVR]string, where string) error {
	if f.Empty() {
		return nil
	}
	selects := func(sel GVRFilter) bool {
		for g, kind := range known {
			if sel.Match(g, kind) {
				return true
			}
		}
		return false
	}
	for _, r := range f.Resources {
		if !selects(GVRFilter{Resources: []string{r}, Names: f.Names}) {
			return fmt.Errorf("no group/version/resource matches resource %s in %s%s ('mvpctl routes --all' lists them)", strings.TrimSpace(r), where, closest(r, f.resourceNames(known)))
		}
	}
	for _, gr := range f.Groups {
		if !selects(GVRFilter{Groups: []string{gr}}) {
			return fmt.Errorf("no group/version/resource matches group %s in %s%s ('mvpctl routes --all' lists them)", strings.TrimSpace(gr), where, closest(gr, groupNames(known)))
		}
	}
	if !selects(f) {
		return fmt.Errorf("no group/version/resource matches %s in %s: each matches something, but not together ('mvpctl routes --all' lists them)", f, where)
	}
	return nil
}

// resourceNames are the names a --resource entry may use for known's resources: resource,
// resource.group, group/version/resource, kind, and the other names f knows of.
func (f GVRFilter) resourceNames(known map[GVR]string) []string {
	set := map[string]bool{}
	for g, kind := range known {
		set[g.Resource] = true
		set[g.String()] = true
		if g.Group != "" {
			set[g.Resource+"."+g.Group] = true
		}
		if kind != "" {
			set[kind] = true
		}
	}
	for name, grs := range f.Names {
		for _, gr := range grs {
			for g := range known {
				if g.Group == gr.Group && g.Resource == gr.Resource {
					set[name] = true
				}
			}
		}
	}
	return sortedKeys(set)
}

// groupNames are known's groups as --group names them ("core" for the core group).
func groupNames(known map[GVR]string) []string {
	set := map[string]bool{}
	for g := range known {
		if g.Group == "" {
			set["core"] = true
		} else {
			set[g.Group] = true
		}
	}
	return sortedKeys(set)
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// closest is "; the closest is NAME" for the candidate nearest to s by edit distance
// (case-insensitive; the first in order of a tie), or "" when there is no candidate or the
// nearest differs in more than half of s.
func closest(s string, candidates []string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	best, bestD := "", -1
	for _, c := range candidates {
		if d := EditDistance(s, strings.ToLower(c)); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > (len(s)+1)/2 {
		return ""
	}
	return fmt.Sprintf("; the closest is %s", best)
}

// EditDistance is the Levenshtein distance of a and b, with a transposition of two adjacent
// characters counted as one edit (jbos → jobs).
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
