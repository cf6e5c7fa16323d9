package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
)

// Discovery Accept headers (client-go discovery.AcceptV2 / AcceptV2NoPeer).
const (
	AcceptAggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	AcceptNoPeer     = AcceptAggregated + ";profile=nopeer"
)

// Identity-lease label and namespace.
const (
	IdentityLeaseLabel     = "apiserver.kubernetes.io/identity=kube-apiserver"
	IdentityLeaseNamespace = "kube-system"
	hostnameLabel          = "kubernetes.io/hostname"
)

// GVR is a group/version/resource as listed in aggregated discovery ("" group = core).
type GVR struct{ Group, Version, Resource string }

func (g GVR) String() string {
	if g.Group == "" {
		return "core/" + g.Version + "/" + g.Resource
	}
	return g.Group + "/" + g.Version + "/" + g.Resource
}

// IdentityLeases lists the kube-apiserver identity leases as seen through s.
func (s *Server) IdentityLeases(ctx context.Context) ([]coordinationv1.Lease, error) {
	r, err := s.Get(ctx, "/apis/coordination.k8s.io/v1/namespaces/"+IdentityLeaseNamespace+"/leases?labelSelector="+url.QueryEscape(IdentityLeaseLabel))
	if err != nil {
		return nil, err
	}
	if r.StatusCode != 200 {
		return nil, fmt.Errorf("%s: list identity leases: %s", s.Name, r)
	}
	var l coordinationv1.LeaseList
	if err := json.Unmarshal(r.Body, &l); err != nil {
		return nil, fmt.Errorf("%s: decode leases: %w", s.Name, err)
	}
	return l.Items, nil
}

// Discovery fetches s's aggregated discovery document for /apis (or /api): its own
// (nopeer=true) or the peer-aggregated one (nopeer=false; 1.35+ with MVP installed,
// otherwise the server answers with its local document).
func (s *Server) Discovery(ctx context.Context, path string, nopeer bool) (*apidiscoveryv2.APIGroupDiscoveryList, error) {
	accept := AcceptAggregated
	if nopeer {
		accept = AcceptNoPeer
	}
	r, err := s.Get(ctx, path, "Accept", accept)
	if err != nil {
		return nil, err
	}
	if r.StatusCode != 200 {
		return nil, fmt.Errorf("%s: GET %s (%s): %s", s.Name, path, accept, r)
	}
	var l apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(r.Body, &l); err != nil {
		return nil, fmt.Errorf("%s: decode %s: %w", s.Name, path, err)
	}
	return &l, nil
}

// GVRs flattens a discovery document (top-level resources only).
func GVRs(l *apidiscoveryv2.APIGroupDiscoveryList) map[GVR]bool {
	out := map[GVR]bool{}
	for _, g := range l.Items {
		for _, v := range g.Versions {
			for _, r := range v.Resources {
				out[GVR{g.Name, v.Version, r.Resource}] = true
			}
		}
	}
	return out
}

// WaitPeers waits until the running servers know each other:
//
//  1. every running server's identity lease (name = its computed LeaseID, label
//     kubernetes.io/hostname = its Name) is listed, checked through every running
//     server; a lease for a server's hostname under another name is an error (the
//     LeaseID formula would be wrong);
//  2. for each running server S with MVP installed, and each other running gate-on
//     server P: take the group/version/resources P serves itself (P's `profile=nopeer`
//     /apis) that S does not serve itself (S's nopeer /apis), minus what peer
//     aggregation drops by design (GVs of CRDs and of APIServices with spec.service).
//     (a) For 1.35+, S's peer-aggregated /apis must contain all of them.
//     (b) For one of them — preferably one that only P serves — a real
//     `GET /apis/<g>/<v>/<r>?limit=1` to S must be proxied (answer anything but 404
//     or 503). (a) alone is not enough: on 1.36 the peer-aggregated document is a
//     cache that can outlive S's peer data (seen after a peer was SIGKILLed and
//     restarted: the document still listed the peer's groups while S answered 404
//     until its peer-discovery retries caught the restarted peer's address).
//
// If S serves everything P serves, there is nothing to wait for: S routes locally.
// Only /apis is compared: /api (core) is never peer-aggregated or proxied.
func (cp *ControlPlane) WaitPeers(ctx context.Context) error {
	t0 := time.Now()
	var running []*Server
	for _, s := range cp.servers {
		if s.Running() {
			running = append(running, s)
		}
	}
	// 1. leases
	for {
		missing, err := cp.missingLeases(ctx, running)
		if err != nil {
			return err
		}
		if len(missing) == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("identity leases not all visible: %s", strings.Join(missing, "; "))
		case <-time.After(500 * time.Millisecond):
		}
	}
	cp.logf("harness: identity leases of %d running server(s) visible after %s", len(running), time.Since(t0).Round(time.Millisecond))

	// 2. peer discovery and routing
	for _, s := range running {
		if !s.MVP() || s.WrongPeerCA {
			continue // it does not route to its peers, by design of the test
		}
		t1 := time.Now()
		for {
			problems, err := cp.peerProblems(ctx, s, running)
			if err == nil && len(problems) == 0 {
				break
			}
			select {
			case <-ctx.Done():
				if err != nil {
					return fmt.Errorf("%s: peer discovery not complete: %w", s.Name, err)
				}
				return fmt.Errorf("%s: peers not ready after %s: %s", s.Name, time.Since(t1).Round(time.Second), strings.Join(first(problems, 8), "; "))
			case <-time.After(500 * time.Millisecond):
			}
		}
		cp.logf("harness: %s routes to its peers after %s", s.Name, time.Since(t1).Round(time.Millisecond))
	}
	return nil
}

func first(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func (cp *ControlPlane) missingLeases(ctx context.Context, running []*Server) ([]string, error) {
	var missing []string
	for _, via := range running {
		leases, err := via.IdentityLeases(ctx)
		if err != nil {
			missing = append(missing, err.Error())
			continue
		}
		names := map[string]bool{}
		for _, l := range leases {
			names[l.Name] = true
			if h := l.Labels[hostnameLabel]; h != "" {
				if s := cp.byName[h]; s != nil && s.LeaseID != l.Name {
					return nil, fmt.Errorf("identity lease %s has hostname %s, but mvp.ServerID(%q) = %s", l.Name, h, h, s.LeaseID)
				}
			}
		}
		for _, s := range running {
			if !names[s.LeaseID] {
				missing = append(missing, fmt.Sprintf("%s does not list %s's lease %s", via.Name, s.Name, s.LeaseID))
			}
		}
	}
	return missing, nil
}

// peerProblems returns what S does not yet know about its running peers (see
// WaitPeers); empty means S routes to all of them.
func (cp *ControlPlane) peerProblems(ctx context.Context, s *Server, running []*Server) ([]string, error) {
	excluded, err := s.peerExcludedGVs(ctx)
	if err != nil {
		return nil, err
	}
	own, err := s.Discovery(ctx, "/apis", true)
	if err != nil {
		return nil, err
	}
	local := resources(own)
	// What each gate-on peer serves that S does not.
	peerOnly := map[*Server]map[GVR]apidiscoveryv2.APIResourceDiscovery{}
	servedBy := map[GVR]int{}
	for _, p := range running {
		if p == s || !p.GateOn() || p.UnreachableAdvertise {
			continue // a gate-off server publishes no peer endpoint; an unreachable one is never learned
		}
		d, err := p.Discovery(ctx, "/apis", true)
		if err != nil {
			return nil, err
		}
		m := map[GVR]apidiscoveryv2.APIResourceDiscovery{}
		for g, r := range resources(d) {
			servedBy[g]++
			if _, mine := local[g]; !mine && !excluded[g.Group+"/"+g.Version] {
				m[g] = r
			}
		}
		peerOnly[p] = m
	}
	var problems []string
	var have map[GVR]bool
	if s.Minor() >= 35 {
		d, err := s.Discovery(ctx, "/apis", false)
		if err != nil {
			return nil, err
		}
		have = GVRs(d)
	}
	for _, p := range running {
		m, ok := peerOnly[p]
		if !ok || len(m) == 0 {
			continue
		}
		if have != nil {
			var missing []string
			for g := range m {
				if !have[g] {
					missing = append(missing, g.String())
				}
			}
			if len(missing) > 0 {
				sort.Strings(missing)
				problems = append(problems, fmt.Sprintf("peer-aggregated /apis lacks %d GVRs of %s, e.g. %s", len(missing), p.Name, strings.Join(first(missing, 4), ", ")))
				continue
			}
		}
		g, ok := probeGVR(m, servedBy)
		if !ok {
			continue // nothing listable to try
		}
		path := fmt.Sprintf("/apis/%s/%s/%s?limit=1", g.Group, g.Version, g.Resource)
		r, err := s.Get(ctx, path, "Accept", "application/json")
		if err != nil {
			return nil, err
		}
		if r.StatusCode == 404 || r.StatusCode == 503 {
			problems = append(problems, fmt.Sprintf("GET %s (served by %s) answered %d", path, p.Name, r.StatusCode))
		}
	}
	return problems, nil
}

// probeGVR picks a listable GVR from m, preferring one served by the fewest servers,
// then the alphabetically first (deterministic).
func probeGVR(m map[GVR]apidiscoveryv2.APIResourceDiscovery, servedBy map[GVR]int) (GVR, bool) {
	var best GVR
	found := false
	for g, r := range m {
		if !hasVerb(r.Verbs, "list") {
			continue
		}
		if !found || servedBy[g] < servedBy[best] || (servedBy[g] == servedBy[best] && g.String() < best.String()) {
			best, found = g, true
		}
	}
	return best, found
}

func hasVerb(verbs []string, v string) bool {
	for _, x := range verbs {
		if x == v {
			return true
		}
	}
	return false
}

// resources flattens a discovery document, keeping each resource's entry.
func resources(l *apidiscoveryv2.APIGroupDiscoveryList) map[GVR]apidiscoveryv2.APIResourceDiscovery {
	out := map[GVR]apidiscoveryv2.APIResourceDiscovery{}
	for _, g := range l.Items {
		for _, v := range g.Versions {
			for _, r := range v.Resources {
				out[GVR{g.Name, v.Version, r.Resource}] = r
			}
		}
	}
	return out
}

// peerExcludedGVs returns "group/version" of every CRD version and of every APIService
// with spec.service set, as seen through s: peer aggregation drops these (1.35+).
func (s *Server) peerExcludedGVs(ctx context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	var crds struct {
		Items []struct {
			Spec struct {
				Group    string `json:"group"`
				Versions []struct {
					Name string `json:"name"`
				} `json:"versions"`
			} `json:"spec"`
		} `json:"items"`
	}
	if err := s.getJSON(ctx, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", &crds); err != nil {
		return nil, err
	}
	for _, c := range crds.Items {
		for _, v := range c.Spec.Versions {
			out[c.Spec.Group+"/"+v.Name] = true
		}
	}
	var svcs struct {
		Items []struct {
			Spec struct {
				Group   string          `json:"group"`
				Version string          `json:"version"`
				Service json.RawMessage `json:"service"`
			} `json:"spec"`
		} `json:"items"`
	}
	if err := s.getJSON(ctx, "/apis/apiregistration.k8s.io/v1/apiservices", &svcs); err != nil {
		return nil, err
	}
	for _, a := range svcs.Items {
		if len(a.Spec.Service) > 0 && string(a.Spec.Service) != "null" {
			out[a.Spec.Group+"/"+a.Spec.Version] = true
		}
	}
	return out, nil
}

func (s *Server) getJSON(ctx context.Context, path string, v any) error {
	r, err := s.Get(ctx, path, "Accept", "application/json")
	if err != nil {
		return err
	}
	if r.StatusCode != 200 {
		return fmt.Errorf("%s: GET %s: %s", s.Name, path, r)
	}
	return json.Unmarshal(r.Body, v)
}
