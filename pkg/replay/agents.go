package replay

import "sort"

// The user agents of a replay: the report's table of them, and each GVR's own (GVRTraffic.Agents),
// which findings use to name a GVR's clients.

// maxAgentsPerGVR bounds each GVR's user agents; further agents are counted as "<other>".
const maxAgentsPerGVR = 100

// Agents returns the user agents of the GVR's requests, most requests at risk first.
func (g GVRTraffic) Agents() []UserAgentTraffic { return sortedAgents(g.agents) }

// sortedAgents lists agents, most requests at risk first (riskFirst).
func sortedAgents(agents map[string]*UserAgentTraffic) []UserAgentTraffic {
	out := make([]UserAgentTraffic, 0, len(agents))
	for _, a := range agents {
		out = append(out, *a)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return riskFirst(a.AtRisk, b.AtRisk, a.Requests, b.Requests, a.UserAgent, b.UserAgent)
	})
	return out
}

// riskFirst orders report rows: most requests at risk first, then most requests, then by name.
func riskFirst(riskA, riskB, reqA, reqB int64, nameA, nameB string) bool {
	if riskA != riskB {
		return riskA > riskB
	}
	if reqA != reqB {
		return reqA > reqB
	}
	return nameA < nameB
}

func agentEntry(agents map[string]*UserAgentTraffic, ua string, limit int) *UserAgentTraffic {
	if ua == "" {
		ua = "<none>"
	}
	if a, ok := agents[ua]; ok {
		return a
	}
	if len(agents) >= limit {
		ua = "<other>"
		if a, ok := agents[ua]; ok {
			return a
		}
	}
	a := &UserAgentTraffic{UserAgent: ua}
	agents[ua] = a
	return a
}
