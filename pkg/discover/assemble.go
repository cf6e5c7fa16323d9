package discover

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// assemble turns results into snapshot servers, sorted by name.
func (d *discoverer) assemble(results []*result, src snapshot.Sources, takenAt time.Time) []snapshot.Server {
	var servers []snapshot.Server
	for _, r := range results {
		servers = append(servers, d.server(r, src, takenAt))
	}
	sort.SliceStable(servers, func(i, j int) bool { return servers[i].Name < servers[j].Name })
	droppedByPeersEvidence(servers)
	used := map[string]int{}
	for i := range servers {
		name := servers[i].Name
		if n := used[name]; n > 0 {
			servers[i].Name = fmt.Sprintf("%s-%d", name, n+1)
		}
		used[name]++
	}
	return servers
}

func (d *discoverer) server(r *result, src snapshot.Sources, takenAt time.Time) snapshot.Server {
	t := r.t
	srv := snapshot.Server{
		Name:            serverName(r),
		Endpoint:        t.base,
		FoundBy:         t.foundBy,
		Context:         t.context,
		Version:         r.version,
		EmulatedVersion: r.emulated,
		Reachable:       r.client != nil && r.err == nil,
	}
	if l := t.lease; l != nil {
		srv.ID, srv.Hostname, srv.PeerAdvertiseAddress = l.name, l.hostname, l.address
		srv.IdentityLease = l.snapshotLease()
	}
	switch {
	case t.skip != "":
		srv.Error = t.skip
	case r.err != nil:
		srv.Error = d.red.Clean(apiclient.OneLine(r.err.Error()))
	}
	if r.doc != nil && srv.Reachable {
		srv.DiscoveryFormat = recordedFormat(r)
		srv.Resources = r.doc.resources
		src.Set(srv.Resources)
		srv.APIs = r.doc.apis
		srv.CoreAPI = r.doc.coreAPI
	}
	if srv.Reachable && srv.PeerAdvertiseAddress != "" {
		// After matching: a server read at an endpoint learns its lease (and address) here.
		ok, why := dialAdvertised(context.Background(), srv.PeerAdvertiseAddress)
		r.advertiseReachable, r.advertiseErr = &ok, why
	}
	srv.PeerProxy = peerProxyEvidence(r, t.lease, takenAt)
	for i, e := range srv.PeerProxy.Evidence {
		srv.PeerProxy.Evidence[i] = d.red.Clean(e)
	}
	if pa := srv.PeerProxy.PeerAggregatedDiscovery; pa != nil && *pa && r.peerAggFetched && srv.Reachable {
		srv.PeerAggregated = r.peerAgg
		src.Set(srv.PeerAggregated)
		srv.DefaultAPIs = r.peerAggDoc
	}
	if r.requests != nil && srv.Reachable {
		srv.Requests = r.requests
		srv.Requests.ReadAt = takenAt
		if err := srv.Requests.Check(); err != nil {
			srv.Requests.Refuse(err)
			r.requestsRefused = true
		}
		if r.requestsRefused {
			d.warn("%s: request counters not taken as client evidence: %s", srv.Name, srv.Requests.Error)
		}
		srv.Requests.Error = d.red.Clean(srv.Requests.Error)
	}
	return srv
}

// recordedFormat names the document used. A v2 answer honours profile=nopeer from 1.35, the
// first version that has the parameter; before that the profile is ignored, but those
// versions have no peer-aggregated discovery, so their v2 document is their own view as well.
func recordedFormat(r *result) string {
	switch r.doc.format {
	case "v2":
		if r.minor >= 0 && mvp.HonoursNoPeerProfile(r.binaryVersion()) {
			return snapshot.DiscoveryNoPeer
		}
		return snapshot.DiscoveryV2
	case "v2beta1":
		return snapshot.DiscoveryV2Beta1
	}
	return snapshot.DiscoveryLegacy
}

// serverName is the hostname from the identity lease when known, else the server's host:port,
// else the lease name.
func serverName(r *result) string {
	if l := r.t.lease; l != nil && l.hostname != "" {
		return l.hostname
	}
	if r.t.base != "" {
		if hp := HostPort(r.t.base); hp != "" {
			return hp
		}
		return r.t.base
	}
	if r.t.lease != nil {
		return r.t.lease.name
	}
	return "<unknown>"
}

func leaseLabel(l *identityLease) string {
	if l.hostname != "" {
		return fmt.Sprintf("%s (lease %s)", l.hostname, l.name)
	}
	return "lease " + l.name
}

// sortedResults orders results by server name, so "the first reachable server" is stable.
func sortedResults(results []*result) []*result {
	out := append([]*result(nil), results...)
	sort.SliceStable(out, func(i, j int) bool { return serverName(out[i]) < serverName(out[j]) })
	return out
}

func foundLine(targets []*target, leasesRead bool) string {
	count := map[string]int{}
	for _, t := range targets {
		count[t.foundBy]++
	}
	n := len(targets)
	noun := "apiservers"
	if n == 1 {
		noun = "apiserver"
	}
	if count[FoundByLease] == n && leasesRead {
		return fmt.Sprintf("found %d %s via identity leases", n, noun)
	}
	var parts []string
	for _, k := range []struct{ key, label string }{{FoundByLease, "identity leases"}, {FoundByEndpoint, "--endpoint"}, {FoundByContext, "kubeconfig contexts"}} {
		if count[k.key] > 0 {
			parts = append(parts, fmt.Sprintf("%d via %s", count[k.key], k.label))
		}
	}
	return fmt.Sprintf("found %d %s (%s)", n, noun, strings.Join(parts, ", "))
}

// source describes where the snapshot came from, without credentials.
func (d *discoverer) source(primaryBase string, endpoints []string, contexts []namedConfig) string {
	var parts []string
	if len(contexts) > 0 {
		names := make([]string, len(contexts))
		for i, c := range contexts {
			names[i] = fmt.Sprintf("%q", c.name)
		}
		parts = append(parts, "contexts "+strings.Join(names, ", "))
	} else if name := d.opts.currentContext(); name != "" {
		parts = append(parts, fmt.Sprintf("context %q (%s)", name, primaryBase))
	} else {
		parts = append(parts, "server "+primaryBase)
	}
	if len(endpoints) > 0 {
		parts = append(parts, "endpoints "+strings.Join(endpoints, ", "))
	}
	return strings.Join(parts, "; ")
}

// FailureLine words an unreadable server for a terminal: "server NAME (URL): what — advice".
func FailureLine(s *snapshot.Server) string {
	msg := s.Error
	if s.Endpoint != "" {
		msg = strings.Replace(msg, "GET "+s.Endpoint, "GET ", 1)
		return fmt.Sprintf("server %s (%s): %s", s.Name, s.Endpoint, msg)
	}
	if s.PeerAdvertiseAddress != "" {
		return fmt.Sprintf("server %s (%s): %s", s.Name, s.PeerAdvertiseAddress, msg)
	}
	return fmt.Sprintf("server %s: %s", s.Name, msg)
}
