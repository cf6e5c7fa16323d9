package route

import (
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

var takenAt = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func res(gvr string, source ...string) snapshot.Resource {
	g, err := snapshot.ParseGVR(gvr)
	if err != nil {
		panic(err)
	}
	r := snapshot.Resource{Group: g.Group, Version: g.Version, Resource: g.Resource, Namespaced: true,
		Verbs: []string{"get", "list"}, Source: snapshot.SourceBuiltin}
	if g.Resource == "jobs" || g.Resource == "pods" {
		r.Subresources = []string{"status"}
	}
	if len(source) > 0 {
		r.Source = source[0]
	}
	return r
}

func resources(gvrs ...string) []snapshot.Resource {
	out := make([]snapshot.Resource, len(gvrs))
	for i, g := range gvrs {
		out[i] = res(g)
	}
	return out
}

// server returns a reachable server with the filter installed.
func server(name, version string, gvrs ...string) snapshot.Server {
	renew := takenAt.Add(-3 * time.Second)
	return snapshot.Server{
		Name: name, ID: "apiserver-" + name, Hostname: name, Version: version,
		PeerAdvertiseAddress: "127.0.0.1:6443",
		IdentityLease:        &snapshot.Lease{Name: "apiserver-" + name, HolderIdentity: "apiserver-" + name + "_x", RenewTime: &renew},
		PeerProxy:            snapshot.PeerProxy{GateEnabled: snapshot.Ptr(true), FilterInstalled: snapshot.Ptr(true)},
		Reachable:            true, DiscoveryFormat: snapshot.DiscoveryNoPeer,
		Resources: resources(gvrs...),
	}
}

func snap(servers ...snapshot.Server) *snapshot.Snapshot {
	s := snapshot.New()
	s.TakenAt = takenAt
	s.Servers = synced(servers)
	if err := s.Validate(); err != nil {
		panic(err)
	}
	return s
}

// synced records, for every reachable 1.35+ server whose peer-aggregated /apis is not set, what
// a fully synced server lists: its own and every other server's non-core resources. A test of
// a document that was not recorded sets PeerAggregated to an empty, non-nil slice.
func synced(servers []snapshot.Server) []snapshot.Server {
	for i := range servers {
		s := &servers[i]
		if v, _ := snapshot.ParseVersion(s.Version); !s.Reachable || s.PeerAggregated != nil || v.Minor < 35 {
			continue
		}
		seen := map[snapshot.GVR]bool{}
		for _, o := range servers {
			for _, r := range o.Resources {
				if r.Group != "" && !seen[r.GVR()] {
					seen[r.GVR()] = true
					s.PeerAggregated = append(s.PeerAggregated, r)
				}
			}
		}
	}
	return servers
}

// notRecorded marks a server's peer-aggregated /apis as not recorded.
func notRecorded(s snapshot.Server) snapshot.Server {
	s.PeerAggregated = []snapshot.Resource{}
	return s
}

// down marks a server crashed: unreachable, no resources of its own recorded, lease kept.
func down(s snapshot.Server, endpointLives bool) snapshot.Server {
	s.Reachable, s.Error, s.Resources = false, "connection refused", nil
	s.PeerProxy.EndpointResolvable = snapshot.Ptr(endpointLives)
	return s
}

func withAggregated(s snapshot.Server, gvrs ...string) snapshot.Server {
	s.PeerAggregated = resources(gvrs...)
	return s
}

func with(s snapshot.Server, f func(*snapshot.Server)) snapshot.Server {
	f(&s)
	return s
}

var all = []string{"v1/pods", "apps/v1/deployments", "batch/v1/jobs"}
var noBatch = []string{"v1/pods", "apps/v1/deployments"}
