package render

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/preflight"
)

// fixGroup is one fix of one check and the findings it fixes: the fix is printed once per
// check (and per distinct fix), not on every row.
type fixGroup struct {
	check    string
	name     string
	hint     string
	subjects []string
	bySev    map[preflight.Severity]int
}

// fixGroups groups the findings by check and fix, in the order the findings come.
func fixGroups(findings []preflight.Finding) []*fixGroup {
	var out []*fixGroup
	index := map[[2]string]*fixGroup{}
	for _, f := range findings {
		key := [2]string{f.Check, f.Hint}
		g := index[key]
		if g == nil {
			g = &fixGroup{check: f.Check, name: f.Name, hint: f.Hint, bySev: map[preflight.Severity]int{}}
			index[key] = g
			out = append(out, g)
		}
		g.subjects = append(g.subjects, f.Subject)
		g.bySev[f.Severity]++
	}
	return out
}

// what says which findings a fix is for: their subjects when they are short, else how many.
func (g *fixGroup) what() string {
	if list := strings.Join(g.subjects, ", "); len(list) <= maxFixSubjects {
		return list
	}
	return fmt.Sprintf("%d findings", len(g.subjects))
}

// severities counts the group's findings by severity: "1 blocking, 20 warning".
func (g *fixGroup) severities() string {
	var parts []string
	for _, s := range []preflight.Severity{preflight.Blocking, preflight.Warning, preflight.Info} {
		if n := g.bySev[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	return strings.Join(parts, ", ")
}

// maxFixSubjects is how long the list of subjects a fix line names may be before it counts
// them instead.
const maxFixSubjects = 40

// stepsLine numbers the steps of the rehearsal, which the findings refer to by number.
func stepsLine(rep *preflight.Report) string {
	if len(rep.Scenario.Steps) == 0 {
		return ""
	}
	steps := make([]string, len(rep.Scenario.Steps))
	for i, s := range rep.Scenario.Steps {
		steps[i] = fmt.Sprintf("%d %s", i+1, s)
	}
	return "Steps: " + strings.Join(steps, " · ")
}

// CountsByCheck counts findings by check: "MVP003 ×3, MVP010 ×4".
func CountsByCheck(findings []preflight.Finding) string {
	counts := map[string]int{}
	var order []string
	for _, f := range findings {
		if counts[f.Check] == 0 {
			order = append(order, f.Check)
		}
		counts[f.Check]++
	}
	parts := make([]string, len(order))
	for i, c := range order {
		parts[i] = fmt.Sprintf("%s ×%d", c, counts[c])
	}
	return strings.Join(parts, ", ")
}
