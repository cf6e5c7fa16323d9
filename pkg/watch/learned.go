package watch

import (
	"sort"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/proxytraffic"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// provenLearned is what each server's own counters prove it learned from its peers: a GVR it
// proxied with a 2xx answer. Routing takes what a server learned from its peer-aggregated
// /apis (docs/behaviour.md §7), and that document can lag the proxy's own peer cache: in the
// end-to-end test, under load, a v1.36 server proxied a GVR with 200s for 14s while its /apis
// did not list it yet, and the watch reported a 404 window the requests never saw. The
// counters are the server's own account of what it did; they win over the document.
//
// What a process proved dies with it: a server seen down, gone, with another identity-lease
// holder, or whose counters come from a new process, starts again from its /apis.
type provenLearned struct {
	byServer map[string]map[snapshot.GVR]bool
	holder   map[string]string // the lease holder when the proof was taken
}

func newProvenLearned() *provenLearned {
	return &provenLearned{byServer: map[string]map[snapshot.GVR]bool{}, holder: map[string]string{}}
}

// forget drops the proofs of servers that snap shows down, missing, or held by another
// process.
func (p *provenLearned) forget(snap *snapshot.Snapshot) {
	current := map[string]*snapshot.Server{}
	for i := range snap.Servers {
		current[snap.Servers[i].Name] = &snap.Servers[i]
	}
	for name := range p.byServer {
		s := current[name]
		if s == nil || !s.Reachable || holderOf(s) != p.holder[name] {
			delete(p.byServer, name)
			delete(p.holder, name)
		}
	}
}

// add takes the proofs of one sample of the counters, of servers as snap has them.
func (p *provenLearned) add(servers []proxytraffic.Server, snap *snapshot.Snapshot) {
	current := map[string]*snapshot.Server{}
	for i := range snap.Servers {
		current[snap.Servers[i].Name] = &snap.Servers[i]
	}
	for _, s := range servers {
		srv := current[s.Name]
		if !s.Read || !s.ByGVR || srv == nil {
			continue
		}
		if s.NewProcess {
			delete(p.byServer, s.Name)
		}
		for _, c := range s.Proxied {
			if c.GVR == "" || !strings.HasPrefix(c.Code, "2") || c.Count <= 0 {
				continue
			}
			g, err := snapshot.ParseGVR(c.GVR)
			if err != nil {
				continue
			}
			if p.byServer[s.Name] == nil {
				p.byServer[s.Name] = map[snapshot.GVR]bool{}
				p.holder[s.Name] = holderOf(srv)
			}
			p.byServer[s.Name][g] = true
		}
	}
}

// apply returns snap with each server's peer-aggregated /apis completed by what its counters
// proved it learned, copied from a reachable peer that serves it; snap itself is not changed.
func (p *provenLearned) apply(snap *snapshot.Snapshot) *snapshot.Snapshot {
	if len(p.byServer) == 0 {
		return snap
	}
	served := map[snapshot.GVR]snapshot.Resource{}
	for _, s := range snap.Servers {
		if s.Reachable {
			for _, r := range s.Resources {
				served[r.GVR()] = r
			}
		}
	}
	c := *snap
	c.Servers = append([]snapshot.Server(nil), snap.Servers...)
	for i := range c.Servers {
		s := &c.Servers[i]
		proven := p.byServer[s.Name]
		if len(proven) == 0 || !s.Reachable || len(s.PeerAggregated) == 0 {
			continue // no document to complete: routing does not read one for this server
		}
		listed := map[snapshot.GVR]bool{}
		for _, r := range s.PeerAggregated {
			listed[r.GVR()] = true
		}
		var add []snapshot.Resource
		for g := range proven {
			if r, ok := served[g]; ok && !listed[g] {
				add = append(add, r)
			}
		}
		if len(add) > 0 {
			sort.Slice(add, func(i, j int) bool { return add[i].GVR().String() < add[j].GVR().String() })
			s.PeerAggregated = append(append([]snapshot.Resource(nil), s.PeerAggregated...), add...)
		}
	}
	return &c
}

func holderOf(s *snapshot.Server) string {
	if s.IdentityLease == nil {
		return ""
	}
	return s.IdentityLease.HolderIdentity
}
