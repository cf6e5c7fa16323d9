package probe

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// request is one probe request, sent twice: normally and with the loop-prevention header.
type request struct {
	verb   string
	method string
	path   string // with query
	body   []byte
}

// verbsFor returns the verbs to probe a GVR with: those of list, get, watch (and create with
// dryRun) that its discovery lists. Discovery without verbs (rare) gets the three reads.
func verbsFor(t Target, writeDryRun bool) []string {
	if t.GVR.Resource == "" { // /apis/<group>/<version>: a GET is all there is
		return []string{VerbList}
	}
	has := map[string]bool{}
	for _, v := range t.Verbs {
		has[v] = true
	}
	if len(t.Verbs) == 0 {
		has[VerbList], has[VerbGet], has[VerbWatch] = true, true, true
	}
	var out []string
	for _, v := range []string{VerbList, VerbGet, VerbWatch} {
		if has[v] {
			out = append(out, v)
		}
	}
	if writeDryRun && has[VerbCreate] && t.Kind != "" {
		out = append(out, VerbCreate)
	}
	return out
}

// whyNoVerbs says why a GVR gets no request.
func whyNoVerbs(t Target, writeDryRun bool) string {
	switch {
	case !writeDryRun && contains(t.Verbs, VerbCreate):
		return fmt.Sprintf("its verbs (%s) include none of list, get, watch; --write-dry-run would send a create with dryRun=All", strings.Join(t.Verbs, ","))
	case writeDryRun && contains(t.Verbs, VerbCreate) && t.Kind == "":
		return "discovery names no kind, so no object can be written for a dry-run create"
	}
	return fmt.Sprintf("its verbs (%s) include none of list, get, watch, create", strings.Join(t.Verbs, ","))
}

// collectionPath is the path of a GVR's collection, in namespace ns for a namespaced one.
func collectionPath(t Target, ns string) string {
	if !t.Namespaced {
		ns = ""
	}
	if t.GVR.Resource == "" { // an aggregated APIService whose backend never listed a resource
		return strings.TrimSuffix(route.CollectionPath(t.GVR, ""), "/")
	}
	return route.CollectionPath(t.GVR, ns)
}

// buildRequest makes the request for one verb. Create is always a dry run of a minimal object
// named like the absent object: validation may refuse it, which still shows who handled it.
func buildRequest(t Target, verb, ns, absent string) request {
	coll := collectionPath(t, ns)
	switch verb {
	case VerbGet:
		return request{verb: verb, method: http.MethodGet, path: coll + "/" + url.PathEscape(absent)}
	case VerbWatch:
		return request{verb: verb, method: http.MethodGet, path: coll + "?allowWatchBookmarks=false&timeoutSeconds=" + strconv.Itoa(WatchTimeoutSeconds) + "&watch=1"}
	case VerbCreate:
		obj := map[string]any{
			"apiVersion": t.GVR.GroupVersion(),
			"kind":       t.Kind,
			"metadata":   map[string]any{"name": absent, "labels": map[string]string{"app.kubernetes.io/managed-by": "mvpctl-probe"}},
		}
		if t.Namespaced {
			obj["metadata"].(map[string]any)["namespace"] = ns
		}
		body, _ := json.Marshal(obj)
		return request{verb: verb, method: http.MethodPost, path: coll + "?dryRun=All", body: body}
	}
	return request{verb: VerbList, method: http.MethodGet, path: coll + "?limit=1"}
}

// predict asks the router what server does with the request.
func predict(r *route.Router, snap *snapshot.Snapshot, server string, t Target, req request) (Prediction, error) {
	rq, err := route.ParseRequest(req.method, req.path)
	if err != nil {
		return Prediction{}, err
	}
	d, err := r.Decide(server, rq)
	if err != nil {
		return Prediction{}, err
	}
	p := Prediction{Outcome: d.Outcome, Unavailable: d.Unavailable, Reason: d.Reason, Inferred: d.Inferred, Alternatives: d.Alternatives}
	for _, c := range d.Candidates {
		p.Peers = append(p.Peers, c.Server)
	}
	expect := map[string]bool{}
	switch d.Outcome {
	case mvp.Proxied:
		// What a client sees depends on the peer picked: its answer if it serves the GVR
		// itself, its own 404 if not (a 1.33/1.34 server routing on a 1.35+ peer's
		// peer-aggregated discovery), a transport 503 if it is down.
		var names []string
		for _, c := range d.Candidates {
			if !c.Resolves {
				continue
			}
			peer := snap.Find(c.Server)
			switch {
			case peer == nil || !peer.Reachable:
				expect[mvp.OutcomeKey(mvp.Unavailable, mvp.Transport)] = true
			case peer.Serves(t.GVR):
				expect[string(mvp.Proxied)] = true
				names = append(names, c.Server)
			default:
				expect[string(mvp.NotFound)] = true
				names = append(names, c.Server+" (404)")
			}
		}
		p.Text = "proxy→" + strings.Join(names, ",")
		if len(names) == 0 {
			p.Text = "proxied"
		}
	default:
		expect[mvp.OutcomeKey(d.Outcome, d.Unavailable)] = true
		p.Text = outcomeText(d.Outcome, d.Unavailable)
	}
	for _, k := range d.AlsoPossible {
		// A proxied alternative is observed as what the chosen peer answers: the candidates
		// above already allow it.
		if k != string(mvp.Proxied) {
			expect[k] = true
		}
	}
	for k := range expect {
		p.Expect = append(p.Expect, k)
	}
	sort.Strings(p.Expect)
	if len(p.Alternatives) > 0 {
		p.Text += "*"
	}
	return p, nil
}

// outcomeText is the table form of an outcome.
func outcomeText(o mvp.Outcome, unavailable mvp.Unavailable503) string {
	switch o {
	case mvp.NotFound:
		return "404"
	case mvp.Unavailable:
		if unavailable == mvp.APIServiceUnavailable || unavailable == mvp.BackendUnreachable {
			return route.UnavailableCell(unavailable)
		}
		if unavailable != "" {
			return "503 (" + string(unavailable) + ")"
		}
		return "503"
	}
	return string(o)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
