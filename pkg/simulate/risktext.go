package simulate

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// WindowsText says which server answers what at which steps, one clause per status:
// "404 on b at steps 2–3, on c at steps 2–4; 503 (transport) on b at step 5".
func WindowsText(risks []Risk) string {
	var statuses []string
	byStatus := map[string][]Risk{}
	for _, r := range risks {
		st := riskStatus(r)
		if byStatus[st] == nil {
			statuses = append(statuses, st)
		}
		byStatus[st] = append(byStatus[st], r)
	}
	var clauses []string
	for _, st := range statuses {
		var servers []string
		steps := map[string][]int{}
		for _, r := range byStatus[st] {
			if steps[r.Server] == nil {
				servers = append(servers, r.Server)
			}
			steps[r.Server] = append(steps[r.Server], r.StepN)
		}
		// Servers with the same steps share a clause: "on a, b at step 5".
		var texts []string
		sharing := map[string][]string{}
		for _, srv := range servers {
			text := StepsText(steps[srv])
			if sharing[text] == nil {
				texts = append(texts, text)
			}
			sharing[text] = append(sharing[text], srv)
		}
		parts := make([]string, len(texts))
		for i, text := range texts {
			parts[i] = "on " + strings.Join(sharing[text], ", ") + " at " + text
		}
		clauses = append(clauses, st+" "+strings.Join(parts, ", "))
	}
	return strings.Join(clauses, "; ")
}

// ServedBySets is servedByText's list of servers, without its first words.
func ServedBySets(risks []Risk) string {
	var sets []string
	steps := map[string][]int{}
	for _, r := range risks {
		set := strings.Join(r.ServedBy, ", ")
		if set == "" {
			set = noServerUp
		}
		if steps[set] == nil {
			sets = append(sets, set)
		}
		steps[set] = append(steps[set], r.StepN)
	}
	if len(sets) == 1 {
		return sets[0]
	}
	parts := make([]string, len(sets))
	for i, set := range sets {
		parts[i] = set + " (" + StepsText(steps[set]) + ")"
	}
	return strings.Join(parts, "; ")
}

// noServerUp is the servers that serve a GVR at a step where every one that does is down.
const noServerUp = "no server that is up"

func riskStatus(r Risk) string {
	if r.Unavailable != "" {
		return fmt.Sprintf("%d (%s)", r.Status, r.Unavailable)
	}
	return fmt.Sprint(r.Status)
}

// StepsText writes step numbers as runs: "step 2", "steps 2–4", "steps 0, 2–3".
func StepsText(ns []int) string {
	ns = append([]int(nil), ns...)
	sort.Ints(ns)
	ns = slices.Compact(ns)
	var runs []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if j == i {
			runs = append(runs, fmt.Sprint(ns[i]))
		} else {
			runs = append(runs, fmt.Sprintf("%d–%d", ns[i], ns[j]))
		}
		i = j + 1
	}
	if len(ns) == 1 {
		return "step " + runs[0]
	}
	return "steps " + strings.Join(runs, ", ")
}
