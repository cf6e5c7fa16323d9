package lifecycle

import (
	"fmt"
	"strings"
)

// Query selects rows of the table (mvpctl apis). The zero Query selects every resource's row.
type Query struct {
	// RemovedIn selects the rows removed in that release.
	RemovedIn Release
	// Deprecated selects the rows with a stated deprecation (at At, when set: deprecated and
	// not yet removed there).
	Deprecated bool
	// At is the release States are judged at.
	At Release
	// ReplacementFor selects the row of one GVR ("policy/v1beta1/poddisruptionbudgets") or
	// apiVersion and kind ("policy/v1beta1 PodDisruptionBudget").
	ReplacementFor string
	// Lists keeps the rows of List kinds (which have no resource).
	Lists bool
}

// Select returns the rows q selects, in the table's order; an error when ReplacementFor names
// no row.
func (t *Table) Select(q Query) ([]Row, error) {
	var match func(Row) bool
	if q.ReplacementFor != "" {
		var err error
		if match, err = subjectMatcher(q.ReplacementFor); err != nil {
			return nil, err
		}
	}
	out := []Row{}
	for _, r := range t.Rows {
		switch {
		case r.Resource == "" && !q.Lists:
		case !q.RemovedIn.IsZero() && r.Removed != q.RemovedIn:
		case q.Deprecated && r.Deprecated.IsZero():
		case q.Deprecated && !q.At.IsZero() && r.At(q.At) != Deprecated:
		case match != nil && !match(r):
		default:
			out = append(out, r)
		}
	}
	if match != nil && len(out) == 0 {
		return nil, fmt.Errorf("--replacement-for %s: k8s.io/api states no lifecycle for it (an older GA type, which states none, or not a built-in API): `mvpctl apis` lists those it does", q.ReplacementFor)
	}
	return out, nil
}

// subjectMatcher matches a row by GVR ("apps/v1beta1/deployments", "v1/endpoints") or by
// apiVersion and kind ("apps/v1beta1 Deployment").
func subjectMatcher(s string) (func(Row) bool, error) {
	if av, kind, ok := strings.Cut(strings.TrimSpace(s), " "); ok {
		g, v := SplitAPIVersion(av)
		want := GVK{Group: g, Version: v, Kind: strings.TrimSpace(kind)}
		return func(r Row) bool { return r.GVK == want }, nil
	}
	i := strings.LastIndex(s, "/")
	if i <= 0 || i == len(s)-1 {
		return nil, fmt.Errorf("--replacement-for %q: want GROUP/VERSION/RESOURCE (policy/v1beta1/poddisruptionbudgets, v1/endpoints) or \"APIVERSION KIND\"", s)
	}
	av, res := s[:i], s[i+1:]
	return func(r Row) bool { return r.APIVersion() == av && r.Resource == res }, nil
}

// LookupGVR is the row of the resource gvr ("apps/v1beta1/deployments"), if the table has one.
func (t *Table) LookupGVR(gvr string) (Row, bool) {
	m, err := subjectMatcher(gvr)
	if err != nil {
		return Row{}, false
	}
	for _, r := range t.Rows {
		if r.Resource != "" && m(r) {
			return r, true
		}
	}
	return Row{}, false
}
