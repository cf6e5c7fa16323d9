package preflight

import (
	"fmt"
	"strings"
)

// MVP010 findings are one per GVR, keyed ID:GVR, with each server's record in
// Finding.Windows. A baseline may hold rules of the per-server form, ID:GVR@SERVER (one
// server's window): they accept a finding when, together, they cover every server of its
// windows — never more than each server's rule says — and the report says how to rewrite them.

// legacyWindowRule says whether r is an MVP010 rule of the per-server form.
func legacyWindowRule(r AcceptRule) bool {
	return r.Check == CheckServedEveryStep.ID && strings.Contains(r.Subject, "@")
}

// legacyMatch finds, for a window finding no rule matches, the old-form rules that cover each
// of its servers (the first that matches GVR@SERVER, for each). covered says whether every
// server is; used are the indexes of the rules that matched some server.
func legacyMatch(rules []AcceptRule, f Finding) (used []int, covered bool) {
	if f.Check != CheckServedEveryStep.ID || len(f.Windows) == 0 {
		return nil, false
	}
	covered = true
	seen := map[string]bool{}
	for _, w := range f.Windows {
		if seen[w.Server] {
			continue
		}
		seen[w.Server] = true
		old := Finding{Check: f.Check, Subject: f.Subject + "@" + w.Server}
		i := -1
		for j, r := range rules {
			if legacyWindowRule(r) && r.Matches(old) {
				i = j
				break
			}
		}
		if i < 0 {
			covered = false
			continue
		}
		used = appendIndex(used, i)
	}
	return used, covered
}

func appendIndex(list []int, i int) []int {
	for _, x := range list {
		if x == i {
			return list
		}
	}
	return append(list, i)
}

// legacyNotes say, for each old-form rule, what it still does and how to rewrite it.
func legacyNotes(rules []AcceptRule) []string {
	var out []string
	for _, r := range rules {
		if legacyWindowRule(r) {
			gvr, _, _ := strings.Cut(r.Subject, "@")
			out = append(out, fmt.Sprintf("%s: %s names one server's window (ID:GVR@SERVER), but MVP010 findings are one per GVR (ID:GVR): "+
				"it accepts MVP010:%s only with rules like it for every server that answers 404 or 503 for it; write MVP010:%s instead (--write-baseline rewrites the file)",
				r.Source, r.Key(), gvr, gvr))
		}
	}
	return out
}
