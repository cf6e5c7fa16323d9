package discover

import (
	"fmt"
	"net/url"

	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/internal/apiclient"
)

// namedConfig is one --contexts entry.
type namedConfig struct {
	name string
	cfg  *rest.Config
	base string
}

// targetPlan is the list of servers to read, built from the leases and the user's flags.
type targetPlan struct {
	targets []*target
	// leaseByAddr indexes leases by normalised peer-advertise address, for matching.
	leaseByAddr map[string]*identityLease
	warnings    []string
}

// planTargets decides which servers to read:
//   - every identity lease with a peer-advertise address, dialled at that address with the
//     kubeconfig's credentials — unless --contexts (one context per apiserver) or
//     NoLeaseServers say the user lists the servers;
//   - every --endpoint and every --contexts entry; one whose host:port is a lease's address
//     takes that lease over (one server, found by the user's flag);
//   - when none of those exist, the kubeconfig's own server.
//
// Leases that no target claims are recorded later as servers that were not contacted.
func planTargets(opts *Options, leases []identityLease, base *rest.Config, primaryBase, primaryContext string, endpoints []string, contexts []namedConfig) *targetPlan {
	p := &targetPlan{leaseByAddr: map[string]*identityLease{}}
	for i := range leases {
		if a := apiclient.NormAddr(leases[i].address); a != "" {
			p.leaseByAddr[a] = &leases[i]
		}
	}
	byHostPort := map[string]*target{}
	seen := map[string]bool{}

	if !opts.NoLeaseServers && len(contexts) == 0 {
		for i := range leases {
			l := &leases[i]
			a := apiclient.NormAddr(l.address)
			if a == "" {
				continue
			}
			t := &target{foundBy: FoundByLease, base: "https://" + a, cfg: base, context: primaryContext, lease: l,
				serverNames: apiclient.ServerNames(base, "https://"+a, apiclient.HostOnly(primaryBase))}
			p.targets = append(p.targets, t)
			byHostPort[a] = t
			seen[t.base] = true
		}
	}

	claimed := func(l *identityLease) bool {
		for _, t := range p.targets {
			if t.lease == l {
				return true
			}
		}
		return false
	}
	addExplicit := func(foundBy, b string, cfg *rest.Config, context string, names []string) {
		hp := HostPort(b)
		if t := byHostPort[hp]; t != nil && t.foundBy == FoundByLease && pathOf(b) == "" {
			t.foundBy, t.base, t.cfg, t.context, t.serverNames = foundBy, b, cfg, context, names
			t.matchedBy = "the URL's host:port is the lease's peer-advertise address"
			seen[b] = true
			return
		}
		if seen[b] {
			p.warnings = append(p.warnings, fmt.Sprintf("%s is given twice; reading it once", b))
			return
		}
		seen[b] = true
		t := &target{foundBy: foundBy, base: b, cfg: cfg, context: context, serverNames: names}
		if l := p.leaseByAddr[hp]; l != nil && !claimed(l) {
			t.lease, t.matchedBy = l, "the URL's host:port is the lease's peer-advertise address"
		}
		p.targets = append(p.targets, t)
		byHostPort[hp] = t
	}
	for _, e := range endpoints {
		addExplicit(FoundByEndpoint, e, base, primaryContext, apiclient.ServerNames(base, e, apiclient.HostOnly(primaryBase)))
	}
	for _, c := range contexts {
		addExplicit(FoundByContext, c.base, c.cfg, c.name, apiclient.ServerNames(c.cfg, c.base))
	}

	if len(p.targets) == 0 && primaryBase != "" {
		withAddr := 0
		for _, l := range leases {
			if l.address != "" {
				withAddr++
			}
		}
		if len(leases) > 1 && withAddr == 0 {
			p.warnings = append(p.warnings, "the identity leases carry no peer-advertise address (gate UnknownVersionInteroperabilityProxy off?), so the apiservers cannot be dialled one by one: reading only the kubeconfig's server — use --endpoint or --contexts to reach each apiserver")
		}
		// The kubeconfig's server as written: its TLS settings are known to work.
		p.targets = append(p.targets, &target{foundBy: FoundByContext, base: primaryBase, cfg: base, context: primaryContext})
	}
	return p
}

func pathOf(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return u.EscapedPath()
}
