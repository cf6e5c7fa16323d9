package preflight

import (
	"sort"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/lifecycle"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// The closest known spelling of an apiVersion or kind a short edit away from a known one.

// closestKind is gvk's apiVersion with the kind known there closest to gvk's kind.
func (k *knownAPIs) closestKind(gvk lifecycle.GVK) string {
	gv := gvk.APIVersion()
	if kinds := k.kinds[gv]; !kinds[gvk.Kind] {
		gvk.Kind = closestOr(gvk.Kind, keys(kinds))
	}
	return gvk.String()
}

// closestLifecycle says what the lifecycle states of a suggested spelling ("apiVersion Kind")
// when the target release removes or deprecates it: "itself removed in 1.16 (use apps/v1 Deployment)".
func (k *knownAPIs) closestLifecycle(spelling string, target lifecycle.Release) string {
	av, kind, _ := strings.Cut(spelling, " ")
	g, v := lifecycle.SplitAPIVersion(av)
	r, ok := k.tab.Lookup(lifecycle.GVK{Group: g, Version: v, Kind: kind})
	if !ok {
		return ""
	}
	var s string
	switch r.At(target) {
	case lifecycle.Removed:
		s = "itself removed in " + r.Removed.String()
	case lifecycle.Deprecated:
		s = "itself deprecated in " + r.Deprecated.String()
	default:
		return ""
	}
	if r.Replacement != nil {
		s += " (use " + r.Replacement.String() + ")"
	}
	return s
}

func orCore(group string) string {
	if group == "" {
		return `"" (core)`
	}
	return group
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// closest is the candidate a short edit away from s (at most 2 edits, and at most a third of
// its length; a transposition is one edit; a change of case alone is one), the nearest first,
// else "".
func closest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if c == s {
			continue
		}
		d := snapshot.EditDistance(s, c)
		if strings.EqualFold(s, c) {
			d = 1
		}
		if d < bestD && d <= len(c)/3 {
			best, bestD = c, d
		}
	}
	return best
}

// closestOr is closest, else s itself.
func closestOr(s string, candidates []string) string {
	if c := closest(s, candidates); c != "" {
		return c
	}
	return s
}
