package discover

import (
	"fmt"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/internal/apiclient"
)

// matchLeases gives servers found by --endpoint, --contexts or the kubeconfig their identity
// lease, from the address they advertise in /api (serverAddressByClientCIDRs), which is by
// default their peer-advertise address too; or by elimination (matchByElimination). A lease-found server that turns out to be the
// same apiserver as a server the user named is dropped: the user's entry is kept.
func (d *discoverer) matchLeases(results []*result, leases []identityLease, byAddr map[string]*identityLease) []*result {
	owner := map[*identityLease]*result{}
	for _, r := range results {
		if r.t.lease != nil {
			owner[r.t.lease] = r
		}
	}
	drop := map[*result]bool{}
	for _, r := range results {
		if r.t.lease != nil || r.client == nil {
			continue
		}
		for _, a := range r.serverAddresses {
			l := byAddr[apiclient.NormAddr(a)]
			if l == nil {
				continue
			}
			if other := owner[l]; other != nil {
				if other.t.foundBy != FoundByLease {
					d.warn("servers %s and %s both advertise %s (identity lease %s): the same apiserver, or a load balancer in front of several; only %s gets the identity", serverName(other), serverName(r), a, l.name, serverName(other))
					break
				}
				drop[other] = true
				d.warn("server %s is apiserver %s (it advertises %s); it was also read at that address, which is left out", serverName(r), leaseLabel(l), a)
			}
			r.t.lease, r.t.matchedBy = l, fmt.Sprintf("/api serverAddressByClientCIDRs %s is the lease's peer-advertise address", a)
			owner[l] = r
			break
		}
	}
	d.matchByElimination(results, leases, owner, drop)
	d.accountForAmbiguous(results, leases, owner, drop)
	var out []*result
	for _, r := range results {
		if drop[r] {
			continue
		}
		if r.t.lease == nil && r.client != nil && len(leases) > 0 && !r.ambiguousLease {
			d.warn("server %s matches no identity lease: its ID is unknown, so routing treats it as no one's peer", serverName(r))
		}
		out = append(out, r)
	}
	// Leases no server claimed are apiservers the snapshot must still list.
	for i := range leases {
		l := &leases[i]
		if owner[l] != nil {
			continue
		}
		reason := "not contacted: its identity lease has no " + peerAddressAnnotation + " annotation (gate off?) — reach it with --endpoint URL or --contexts"
		if l.address != "" {
			reason = fmt.Sprintf("not contacted: no --endpoint or context reached it — add --endpoint https://%s", l.address)
		}
		out = append(out, &result{t: &target{foundBy: FoundByLease, lease: l, skip: reason}, minor: -1})
	}
	return out
}

// liveLeaseAge is how recently an identity lease must have been renewed for its apiserver to
// count as running: leases are renewed every 10 s.
const liveLeaseAge = 30 * time.Second

// matchByElimination pairs the only server read without an identity lease with the only live
// identity lease no server claimed. It is how a gate-off server gets its identity: its lease
// has no peer-advertise address to match (docs/behaviour.md §4.2), and an apiserver does not tell its
// hostname. A lease not renewed lately belongs to a server that is down, so it is not paired.
func (d *discoverer) matchByElimination(results []*result, leases []identityLease, owner map[*identityLease]*result, drop map[*result]bool) {
	var servers []*result
	for _, r := range results {
		if r.t.lease == nil && r.client != nil && !drop[r] {
			servers = append(servers, r)
		}
	}
	now := d.opts.now()
	var live []*identityLease
	for i := range leases {
		l := &leases[i]
		if owner[l] == nil && l.renew != nil && now.Sub(*l.renew) < liveLeaseAge {
			live = append(live, l)
		}
	}
	if len(servers) != 1 || len(live) != 1 {
		return
	}
	r, l := servers[0], live[0]
	r.t.lease = l
	r.t.matchedBy = "by elimination: the only server read without a lease, and the only running apiserver's lease no server claimed"
	owner[l] = r
}

// accountForAmbiguous handles several servers read without a lease next to as many running
// apiservers' leases without a peer-advertise address (the gate is off on all of them): they
// are the same apiservers, but nothing an apiserver serves tells which lease is whose. The
// leases are not listed again as servers that were not contacted — every apiserver was read —
// and the servers' IDs stay empty; with the gate off they are nobody's peers anyway.
func (d *discoverer) accountForAmbiguous(results []*result, leases []identityLease, owner map[*identityLease]*result, drop map[*result]bool) {
	var servers []*result
	for _, r := range results {
		if r.t.lease == nil && r.client != nil && !drop[r] {
			servers = append(servers, r)
		}
	}
	now := d.opts.now()
	var unclaimed []*identityLease
	for i := range leases {
		l := &leases[i]
		if owner[l] == nil && l.address == "" && l.renew != nil && now.Sub(*l.renew) < liveLeaseAge {
			unclaimed = append(unclaimed, l)
		}
	}
	if len(servers) < 2 || len(servers) != len(unclaimed) {
		return
	}
	var names, leaseNames []string
	for i, r := range servers {
		r.ambiguousLease = true
		names = append(names, serverName(r))
		leaseNames = append(leaseNames, leaseLabel(unclaimed[i]))
		owner[unclaimed[i]] = r // accounted for, though not which is whose
	}
	d.warn("servers %s are the apiservers of identity leases %s, but which is whose cannot be told: the leases carry no %s annotation (gate off); their IDs are left empty",
		strings.Join(names, ", "), strings.Join(leaseNames, ", "), peerAddressAnnotation)
}
