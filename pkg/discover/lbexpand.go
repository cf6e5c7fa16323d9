package discover

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// liveLeasesAt are the identity leases renewed within liveLeaseAge of now: the apiservers
// running behind the balancer. A lease not renewed lately is a server that is down; it is left
// out of the count (and reported).
func liveLeasesAt(leases []identityLease, now time.Time) (live, stale []*identityLease) {
	for i := range leases {
		l := &leases[i]
		if l.renew != nil && now.Sub(*l.renew) < liveLeaseAge {
			live = append(live, l)
		} else {
			stale = append(stale, l)
		}
	}
	return live, stale
}

// identifyLeases records, per class, the live identity leases its samples named: a sample's
// /api serverAddressByClientCIDRs that is a lease's peer-advertise address (the matching
// matchLeases does for a server read at an --endpoint). It returns how many distinct leases
// were named, and a doubt for each lease named by two classes.
func identifyLeases(classes []*serverClass, live []*identityLease) (seen int, doubts []string) {
	byAddr := map[string]*identityLease{}
	for _, l := range live {
		if a := apiclient.NormAddr(l.address); a != "" {
			byAddr[a] = l
		}
	}
	owners := map[*identityLease][]string{}
	for _, c := range classes {
		have := map[*identityLease]bool{}
		for i, s := range c.samples {
			for _, a := range s.r.serverAddresses {
				l := byAddr[apiclient.NormAddr(a)]
				if l == nil || have[l] {
					continue
				}
				have[l] = true
				c.leases = append(c.leases, classLease{lease: l, sample: i})
				owners[l] = append(owners[l], c.name)
			}
		}
		sort.Slice(c.leases, func(i, j int) bool { return c.leases[i].lease.name < c.leases[j].lease.name })
	}
	for _, l := range live {
		names := owners[l]
		if len(names) > 0 {
			seen++
		}
		if len(names) > 1 {
			doubts = append(doubts, fmt.Sprintf("apiserver %s answered as %s: its configuration changed while sampling, or apiservers share its address", leaseLabel(l), strings.Join(names, " and ")))
		}
	}
	return seen, doubts
}

// memberCounts is how many apiservers each class is taken to hold. Identified leases count
// as members; a class that named none holds at least one; the apiservers no sample named (live
// leases minus those seen) are handed out one at a time to the class furthest below its share
// of the total (largest remainder), so the members add up to max(live leases, classes).
func memberCounts(classes []*serverClass, live, answered int) []int {
	counts := make([]int, len(classes))
	sum := 0
	for i, c := range classes {
		counts[i] = max(1, len(c.leases))
		sum += counts[i]
	}
	total := max(live, len(classes))
	for ; sum < total; sum++ {
		best, bestGap := 0, -1e18
		for i, c := range classes {
			gap := float64(len(c.samples))/float64(answered)*float64(total) - float64(counts[i])
			if gap > bestGap {
				best, bestGap = i, gap
			}
		}
		counts[best]++
	}
	return counts
}

// expandClasses turns classes into the snapshot's servers: each class as many times as it is
// taken to hold apiservers, so that pkg/route, which needs every peer's discovery and picks
// among peers, runs unchanged. An identified member carries its lease's identity and what the
// sample that named it recorded; an estimated member is a copy of the class's first sample,
// with its name as its ID (a server without an ID is never a proxy target).
func expandClasses(classes []*serverClass, servers [][]snapshot.Server, counts []int, answered int) []snapshot.Server {
	var out []snapshot.Server
	for ci, c := range classes {
		share := float64(len(c.samples)) / float64(answered)
		for m := 0; m < counts[ci]; m++ {
			name := c.name
			if counts[ci] > 1 {
				name = fmt.Sprintf("%s-%d", c.name, m+1)
			}
			lb := &snapshot.ServerLB{Class: c.name, Configuration: c.config, Samples: len(c.samples), Share: share, EstimatedServers: counts[ci]}
			var srv snapshot.Server
			if m < len(c.leases) {
				cl := c.leases[m]
				srv = cloneServer(servers[ci][cl.sample])
				l := cl.lease
				srv.ID, srv.Hostname, srv.PeerAdvertiseAddress, srv.IdentityLease = l.name, l.hostname, l.address, l.snapshotLease()
				lb.Identified = true
				srv.PeerProxy.AddEvidence(snapshot.Observed(0), fmt.Sprintf("sampled through the balancer: a sample's /api serverAddressByClientCIDRs names %s, the peer-advertise address of identity lease %s", l.address, l.name))
			} else {
				srv = cloneServer(servers[ci][0])
				srv.ID = name
				srv.PeerProxy.AddEvidence(snapshot.Observed(0), fmt.Sprintf("sampled through the balancer: an estimated member of %s (no sample named its identity lease); its ID is its name", c.name))
			}
			srv.Name, srv.LB, srv.FoundBy = name, lb, FoundByLB
			out = append(out, srv)
		}
	}
	return out
}

// cloneServer copies the slices a member may change (evidence), so members do not share them.
func cloneServer(s snapshot.Server) snapshot.Server {
	s.PeerProxy.Evidence, s.PeerProxy.EvidenceKinds = s.PeerProxy.CopyEvidence()
	return s
}
