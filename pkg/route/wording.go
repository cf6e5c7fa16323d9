package route

import (
	"fmt"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// serves agrees with the number of servers named before it.
func serves(n int) string {
	if n == 1 {
		return "serves"
	}
	return "serve"
}

func viewNames(vs []*serverView) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.srv.Name
	}
	return strings.Join(names, ", ")
}

func candidateList(cs []Candidate) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s (%s): %s", c.Server, c.ID, c.Result)
	}
	return strings.Join(parts, "; ")
}

// keyString prints the routing key as the era's code builds it.
func keyString(g snapshot.GVR, e mvp.Era) string {
	group := fmt.Sprintf("%q", g.Group)
	if g.Group == "" {
		group = e.CoreKey()
	}
	return fmt.Sprintf("{group: %s, version: %q, resource: %q}", group, g.Version, g.Resource)
}

// statedNote names the installer configuration the server's gate and filter were read from,
// when they were not observed.
func statedNote(srv *snapshot.Server) string {
	if src := mvp.StatedSource(srv); src != "" {
		return " [stated: " + src + "]"
	}
	return ""
}

func assumedNote(assumed bool, what string) string {
	if !assumed {
		return ""
	}
	return " [assumed: " + what + "]"
}

// plainAlternative words Decision.Alternatives for people.
var plainAlternative = strings.NewReplacer(
	"unavailable/backend-unreachable", "503 from the aggregator (its backend does not answer)",
	"unavailable/apiservice-unavailable", "503 from the aggregator (APIService unavailable)",
	"unavailable/endpoint-resolution", "503 (no peer address resolves)",
	"unavailable/transport", "503 (the chosen peer does not answer)",
	"not-found", "404 Not Found",
	"proxied", "proxied to a peer",
	"local", "served locally")

// gvOrGVR names what the server lacks: the whole group/version when it serves nothing of it
// ("batch/v1"), else the resource ("batch/v1/jobs").
func (r *Router) gvOrGVR(v *serverView, gvr gvrKey) string {
	if v.servesGroupVersionOf(gvr) {
		return gvr.String()
	}
	return gvr.GroupVersion()
}

// their agrees with the number of servers named before it.
func their(n int) string {
	if n == 1 {
		return "its"
	}
	return "their"
}

// does agrees with the number of servers named before it.
func does(n int) string {
	if n == 1 {
		return "does"
	}
	return "do"
}

func candidateNames(cs []Candidate) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.PeerName()
	}
	return strings.Join(names, ", ")
}

func orUnknownAddress(a string) string {
	if a == "" {
		return "(address unknown)"
	}
	return a
}

// resolvedNames names the peers a request may be proxied to, as the reason does.
func resolvedNames(cs []Candidate) string {
	return proxiedNames(cs, func(c Candidate) string { return c.Server }, "(random)")
}

// plainResolvedNames is resolvedNames with server names for people.
func plainResolvedNames(cs []Candidate) string {
	return proxiedNames(cs, Candidate.PeerName, "(picked at random)")
}

// proxiedNames is name of each candidate the request is proxied to: the one, or "one of" them
// followed by random.
func proxiedNames(cs []Candidate, name func(Candidate) string, random string) string {
	var names []string
	for _, c := range cs {
		if c.outcome == mvp.Proxied {
			names = append(names, name(c))
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	return "one of " + strings.Join(names, ", ") + " " + random
}

// unresolvable says why p's endpoint does not resolve: in the candidate's result (why), for
// people (plain), and what makes it resolve (fix).
func unresolvable(p *serverView) (why, plain, fix string) {
	if gate, _ := mvp.GateOn(p.srv); !gate {
		return "feature gate off: no endpoint lease",
			"its UnknownVersionInteroperabilityProxy gate is off, so it publishes no address (peer endpoint lease)",
			fmt.Sprintf("turn on --feature-gates=UnknownVersionInteroperabilityProxy=true on %s so it publishes its address", p.srv.Name)
	}
	if !p.srv.Reachable {
		ttl := int(mvp.EndpointLeaseTTL.Seconds())
		return fmt.Sprintf("the peer is down and its %d s endpoint lease has expired", ttl),
			fmt.Sprintf("it is down and its published address (a peer endpoint lease with a %d s TTL) has expired", ttl),
			fmt.Sprintf("bring %s back up: it publishes its address again once it runs", p.srv.Name)
	}
	return "no peer endpoint lease", "it has no peer endpoint lease",
		fmt.Sprintf("make %s publish its address: its peer endpoint lease must exist", p.srv.Name)
}

// UnavailableCell is the table form of a 503: the aggregator's own two say so, since no peer is
// involved in them.
func UnavailableCell(kind mvp.Unavailable503) string {
	switch kind {
	case mvp.APIServiceUnavailable:
		return "local 503 (APIService unavailable)"
	case mvp.BackendUnreachable:
		return "local 503 (backend unreachable)"
	}
	return "503"
}

// plainTimeline words d.Timeline for people: an introduction naming the crashed peers (and
// saying when their stop is not certain), then one line per switch.
func (r *Router) plainTimeline(d Decision, crashed []mvp.CrashedPeer) (intro string, lines []string) {
	if len(d.Timeline) == 0 {
		return "", nil
	}
	var names, unsure, why []string
	for _, c := range crashed {
		names = append(names, c.Server.Name)
		if c.Stopped {
			continue
		}
		unsure = append(unsure, c.Server.Name)
		if renew := c.Server.IdentityLease.RenewTime; renew != nil && !r.snap.TakenAt.IsZero() {
			why = append(why, fmt.Sprintf("%s did not answer, but renewed its identity lease %s before the snapshot, as a live server does every %s",
				c.Server.Name, r.snap.TakenAt.Sub(*renew).Round(100*time.Millisecond), mvp.RenewInterval))
		} else {
			why = append(why, c.Server.Name+" did not answer, and no renewal of its identity lease dates its stop")
		}
	}
	intro = fmt.Sprintf("Then, as the crash of %s unfolds:", strings.Join(names, ", "))
	if len(unsure) > 0 {
		intro = fmt.Sprintf("Then, if %s stopped (%s):", strings.Join(unsure, " and "), strings.Join(why, "; "))
	}
	expiry := ""
	for _, sw := range d.Timeline {
		answer := plainAlternative.Replace(sw.To)
		for _, a := range sw.AlsoPossible {
			answer += " or " + plainAlternative.Replace(a)
		}
		who := strings.Join(sw.Servers, ", ")
		switch sw.Event {
		case mvp.EndpointKeyExpiry:
			expiry = who
			lines = append(lines, fmt.Sprintf("%s, when the published address of %s expires: %s", r.plainBounds(sw), who, answer))
		case mvp.PeerDiscoveryRebuild:
			line := fmt.Sprintf("at %s's next peer-discovery rebuild, which drops %s: %s — it comes when an apiserver joins, an apiserver of %s restarts or stops gracefully, or a pending retry of a failed peer-discovery sync runs",
				d.Server, who, answer, mvp.StartDeletesIdentityLeaseVersions())
			if sw.Latest != nil {
				line += fmt.Sprintf(", and by %s UTC at the latest (when the identity lease of %s is garbage-collected)", clock(ceilSecond(*sw.Latest)), who)
			}
			if expiry != "" {
				line += fmt.Sprintf("; a rebuild before the address of %s expires brings it at once", expiry)
				if v := r.byName[d.Server]; v != nil && mvp.ExitsOnFailedPeerFetch(v.srv) {
					line += fmt.Sprintf(", except that %s exits then (the warning above)", d.Server)
				}
			}
			lines = append(lines, line)
		}
	}
	return intro, lines
}

// plainBounds says when a switch comes: its bounds in UTC and relative to the snapshot.
func (r *Router) plainBounds(sw Switch) string {
	if sw.Earliest == nil || sw.Latest == nil {
		return fmt.Sprintf("at most %s after it stopped (no identity lease renewal bounds it)", mvp.EndpointLeaseTTL+mvp.EtcdExpiryLag)
	}
	// Bounds are printed to the second, rounded outwards: what they say stays true.
	s := fmt.Sprintf("between %s and %s UTC", clock(*sw.Earliest), clock(ceilSecond(*sw.Latest)))
	switch at := r.snap.TakenAt; {
	case at.IsZero():
	case at.Before(*sw.Earliest):
		s += fmt.Sprintf(" (%s–%s after the snapshot)", sw.Earliest.Sub(at).Truncate(time.Second), (sw.Latest.Sub(at) + time.Second - 1).Truncate(time.Second))
	case at.Before(*sw.Latest):
		s += " (the snapshot falls in between: it may have come already)"
	}
	return s
}

// ceilSecond is t rounded up to the second.
func ceilSecond(t time.Time) time.Time {
	if c := t.Truncate(time.Second); c.Before(t) {
		return c.Add(time.Second)
	}
	return t
}

// clock is a moment as explanations print it: UTC time of day.
func clock(t time.Time) string { return t.UTC().Format("15:04:05") }
