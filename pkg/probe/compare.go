package probe

import (
	"fmt"
	"net"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// inconclusive reports whether the two answers say nothing about routing: both denied
// (authentication and authorization run before the proxy), or both throttled or failed alike.
func inconclusive(normal, local Classification) (bool, string) {
	switch {
	case normal.Class == ClassDenied && local.Class == ClassDenied:
		return true, fmt.Sprintf("both requests were denied (%d, %d) before the proxy decides anything: grant the probing user get/list/watch on the resource", normal.StatusCode, local.StatusCode)
	case normal.Class == ClassError && local.Class == ClassError && transient(normal.StatusCode) && transient(local.StatusCode):
		return true, fmt.Sprintf("both requests failed (%d, %d): %s", normal.StatusCode, local.StatusCode, normal.Why)
	}
	return false, ""
}

// shapeCut says why the two answers say nothing about routing when the shape of one of them,
// which its class depends on, was in the part of its body cut at the bound ("" when neither).
func shapeCut(normal, local Classification) string {
	var which []string
	if normal.ShapeCut {
		which = append(which, fmt.Sprintf("the answer (%d)", normal.StatusCode))
	}
	if local.ShapeCut {
		which = append(which, fmt.Sprintf("the forced-local answer (%d)", local.StatusCode))
	}
	if len(which) == 0 {
		return ""
	}
	verb := "was"
	if len(which) == 2 {
		verb = "were"
	}
	return fmt.Sprintf("%s %s cut at %s: its shape, which tells who answered, was not read (no answer of the apiserver's own is that long)", strings.Join(which, " and "), verb, ByteSize(MaxBody))
}

func transient(code int) bool {
	return code == http.StatusTooManyRequests || code >= 500
}

// loopViolation reports whether the forced-local answer came from a handler the server does
// not have: the server forwarded a request that carried the loop-prevention header.
func loopViolation(srv *snapshot.Server, g snapshot.GVR, aggregated bool, local Classification) bool {
	if srv.Serves(g) || aggregated { // an aggregated APIService's: the server's own aggregator answers
		return false
	}
	switch local.Class {
	case ClassServed, ClassUnavailableEndpoint, ClassUnavailableTransport:
		return true
	}
	return false
}

// observe turns the two classified answers into the observed outcome and the verdict.
// aggregated says the request is for an aggregated APIService's group/version: its answers
// are the server's own aggregator's (observeAggregated).
func observe(res *Result, srv *snapshot.Server, header string, aggregated bool, normal, local Classification) {
	obs := &res.Observed
	if why := shapeCut(normal, local); why != "" {
		obs.Outcome, obs.Why = mvp.Unknown, why
		obs.Text = fmt.Sprintf("%s (%d)", normal.Class, normal.StatusCode)
		res.Verdict, res.Note = VerdictInconclusive, why
		return
	}
	if ok, why := inconclusive(normal, local); ok && !(aggregated && backendsOwn(normal, local)) {
		obs.Outcome, obs.Why = mvp.Unknown, why
		obs.Text = fmt.Sprintf("%s (%d)", normal.Class, normal.StatusCode)
		res.Verdict, res.Note = VerdictInconclusive, why
		return
	}
	if loopViolation(srv, res.GVR, aggregated, local) {
		// What the normal request did is still observable: the forced-local answer shows the
		// server forwards whatever it gets.
		obs.Outcome, obs.Why = mvp.Proxied, fmt.Sprintf("the request carrying %s: %s got %d (%s) although %s does not serve %s itself: it was forwarded", header, ForcedLocalValue, local.StatusCode, local.Class, srv.Name, res.Name)
		switch normal.Class {
		case ClassUnavailableEndpoint:
			obs.Outcome, obs.Unavailable = mvp.Unavailable, mvp.EndpointResolution
		case ClassUnavailableTransport:
			obs.Outcome, obs.Unavailable = mvp.Unavailable, mvp.Transport
		case ClassUnknownResource:
			obs.Outcome = mvp.NotFound
		}
		obs.Text = observedText(obs.Outcome, obs.Unavailable, nil)
		res.Verdict = VerdictLoopViolation
		res.Note = fmt.Sprintf("%s forwarded a request carrying the loop-prevention header %s: %s (it must handle it itself)", srv.Name, header, ForcedLocalValue)
		return
	}
	c := Combine(normal, local)
	if aggregated {
		c = observeAggregated(c)
	}
	obs.Outcome, obs.Unavailable, obs.Why = c.Outcome, c.Unavailable, c.Why
	obs.Text = observedText(obs.Outcome, obs.Unavailable, nil)
	if aggregated && backendsOwn(normal, local) {
		res.Note = fmt.Sprintf("the APIService's backend answered %d itself (passed through unchanged): check the backend, not the apiservers", normal.StatusCode)
	}
	key := mvp.OutcomeKey(obs.Outcome, obs.Unavailable)
	if contains(res.Predicted.Expect, key) {
		res.Verdict = VerdictMatch
		switch {
		case key == mvp.OutcomeKey(res.Predicted.Outcome, res.Predicted.Unavailable):
		case res.Predicted.Outcome == mvp.Proxied && obs.Outcome == mvp.NotFound:
			res.Note = "as predicted: proxied to a peer that does not serve it itself, whose own 404 comes back"
		case res.Predicted.Outcome == mvp.Proxied && obs.Outcome == mvp.Unavailable:
			res.Note = "as predicted: the random choice fell on a peer that does not answer"
		default:
			res.Note = fmt.Sprintf("an outcome the prediction also allows (%s)", strings.Join(res.Predicted.Alternatives, "; "))
		}
		return
	}
	res.Verdict = VerdictMismatch
	res.Note = fmt.Sprintf("predicted %s (%s), observed %s (%s)", strings.Join(res.Predicted.Expect, " or "), res.Predicted.Reason, key, obs.Why)
	res.Diagnosis = diagnose(srv, res, obs)
	if len(res.Diagnosis) > 0 {
		res.Note += fmt.Sprintf("; most likely %s (to confirm: %s)", res.Diagnosis[0].Text, res.Diagnosis[0].Confirm)
	}
}

// diagnose names the likely causes of a mismatch from the same rules the prediction used. A
// request predicted proxied that the server answers 404 itself means the server has not
// learned what its peers serve (docs/behaviour.md §4.2): the causes are mvp.UnlearnedCauses.
// One predicted 404 that was proxied means the server learned more than its recorded
// peer-aggregated /apis showed: the snapshot is older than the server's peer discovery.
func diagnose(srv *snapshot.Server, res *Result, obs *Measured) []mvp.Cause {
	switch {
	case res.Predicted.Outcome == mvp.Proxied && obs.Outcome == mvp.NotFound:
		peers := make([]*snapshot.Server, len(res.Predicted.Peers))
		for i, name := range res.Predicted.Peers {
			peers[i] = &snapshot.Server{Name: name}
		}
		return mvp.UnlearnedCauses(srv, peers)
	case res.Predicted.Outcome == mvp.NotFound && obs.Outcome == mvp.Proxied:
		return []mvp.Cause{{Name: "snapshot-behind", Text: fmt.Sprintf("%s learned its peers' discovery after the snapshot was taken", srv.Name),
			Confirm: "take a new snapshot and probe again"}}
	}
	return nil
}

// observedText is the table form of an observed outcome.
func observedText(o mvp.Outcome, unavailable mvp.Unavailable503, by []string) string {
	switch o {
	case mvp.Proxied:
		if len(by) > 0 {
			return "proxy→" + strings.Join(by, ",")
		}
		return "proxied"
	case mvp.NotFound:
		return "404"
	case mvp.Unavailable:
		return outcomeText(mvp.Unavailable, unavailable)
	}
	return string(o)
}

// attributeProxied fills By for proxied observations: the other servers whose forced-local
// answer to the same request came from a handler of the same kind as the proxied answer —
// the peers that can have served it. The answer itself does not name its server.
func attributeProxied(results []Result) {
	type key struct {
		name, verb string
	}
	local := map[key]map[string]Class{}
	for i := range results {
		r := &results[i]
		if r.Observed.ForcedLocal == nil {
			continue
		}
		k := key{r.Name, r.Verb}
		if local[k] == nil {
			local[k] = map[string]Class{}
		}
		local[k][r.Server] = r.Observed.ForcedLocal.Class
	}
	for i := range results {
		r := &results[i]
		if r.Observed.Outcome != mvp.Proxied || r.Observed.Normal == nil {
			continue
		}
		var by []string
		for server, class := range local[key{r.Name, r.Verb}] {
			if server != r.Server && class == r.Observed.Normal.Class {
				by = append(by, server)
			}
		}
		sort.Strings(by)
		r.Observed.By = by
		r.Observed.Text = observedText(r.Observed.Outcome, r.Observed.Unavailable, by)
		if len(by) > 0 && r.Verdict == VerdictMatch && len(r.Predicted.Peers) > 0 && !intersects(by, r.Predicted.Peers) {
			r.Note = fmt.Sprintf("proxied as predicted, but only %s answered it by themselves, not the predicted peers %s", strings.Join(by, ","), strings.Join(r.Predicted.Peers, ","))
		}
	}
}

// dialRE finds the address in a transport 503: "error trying to reach service: dial tcp
// 127.0.0.1:17443: connect: connection refused".
var dialRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`dial tcp (\S+?):\s`) })

// attributeTransport names the peer a transport 503 came from: the message quotes the
// address dialled, which is a peer's peer-advertise address.
func attributeTransport(results []Result, snap *snapshot.Snapshot) {
	for i := range results {
		r := &results[i]
		if r.Observed.Unavailable != mvp.Transport || r.Observed.Normal == nil {
			continue
		}
		m := dialRE().FindStringSubmatch(r.Observed.Normal.Message)
		if m == nil {
			continue
		}
		for _, s := range snap.Servers {
			if s.PeerAdvertiseAddress != "" && sameAddr(s.PeerAdvertiseAddress, m[1]) {
				r.Observed.By = []string{s.Name}
				r.Observed.Why += fmt.Sprintf(" (it dialled %s at %s)", s.Name, m[1])
			}
		}
	}
}

func sameAddr(a, b string) bool {
	ha, pa, errA := net.SplitHostPort(a)
	hb, pb, errB := net.SplitHostPort(b)
	if errA != nil || errB != nil || pa != pb {
		return false
	}
	ia, ib := net.ParseIP(ha), net.ParseIP(hb)
	if ia != nil && ib != nil {
		return ia.Equal(ib)
	}
	return ha == hb
}

func intersects(a, b []string) bool {
	for _, x := range a {
		if contains(b, x) {
			return true
		}
	}
	return false
}

// observeAggregated reads a combined observation of an aggregated APIService's group/version,
// which the peer proxy never handles (docs/behaviour.md §16): a transport-shaped 503 is the
// aggregator's dial error (its backend does not answer), and when the APIService turned
// unavailable between the two requests (one dial error, one "service unavailable") the normal
// request's answer is the observation.
func observeAggregated(c Observed) Observed {
	if backendsOwn(c.Normal, c.Local) {
		c.Outcome = mvp.Local
		c.Why = fmt.Sprintf("the APIService's backend answered %d itself, and the server's own aggregator passed it through unchanged", c.Normal.StatusCode)
		return c
	}
	aggregator503 := func(cl Class) bool { return cl == ClassUnavailableTransport || cl == ClassAggregatorUnavailable }
	if !aggregator503(c.Normal.Class) || !aggregator503(c.Local.Class) {
		return c
	}
	c.Outcome, c.Unavailable = mvp.Unavailable, mvp.APIServiceUnavailable
	c.Why = "the server's own aggregator answers that the APIService is not available"
	if c.Normal.Class == ClassUnavailableTransport {
		c.Unavailable = mvp.BackendUnreachable
		c.Why = "the server's own aggregator could not reach the APIService's backend (" + clip(c.Normal.Message) + ")"
	}
	if c.Normal.Class != c.Local.Class {
		c.Why += fmt.Sprintf("; the request with the loop-prevention header got %s: the APIService's state changed between the two", c.Local.Class)
	}
	return c
}

// backendsOwn reports whether two answers to an aggregated APIService's group/version are its
// backend's own error, passed through by the server's aggregator (mvp.AnswerOf): both of class
// error (a 500, a 503 with a Status body, …) — the aggregator's own answers are only its two
// 503 shapes, and the peer proxy never handles the group/version (seen on v1.36.3 and v1.37.1:
// a backend's 500 and 503 Status bodies came back byte for byte, docs/behaviour.md §16). A 404
// is not taken for the backend's (the APIService may have been deleted since the snapshot), nor
// a 429 (priority and fairness throttles before the aggregator).
func backendsOwn(normal, local Classification) bool {
	return normal.Class == ClassError && local.Class == ClassError && normal.StatusCode != http.StatusTooManyRequests
}
