package discover

import (
	"fmt"
	"net"
	"net/url"

	"k8s.io/client-go/rest"
)

// defaultServingName is the DNS name every kube-apiserver's serving certificate carries: peers
// verify each other with it (docs/behaviour.md §5.2), so it is the last TLS server name tried.
const defaultServingName = "kubernetes.default.svc"

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
func planTargets(opts *Options, leases []identityLease, base *rest.Config, primaryBase string, endpoints []string, contexts []namedConfig) *targetPlan {
	p := &targetPlan{leaseByAddr: map[string]*identityLease{}}
	for i := range leases {
		if a := normAddr(leases[i].address); a != "" {
			p.leaseByAddr[a] = &leases[i]
		}
	}
	byHostPort := map[string]*target{}
	seen := map[string]bool{}

	if !opts.NoLeaseServers && len(contexts) == 0 {
		for i := range leases {
			l := &leases[i]
			a := normAddr(l.address)
			if a == "" {
				continue
			}
			t := &target{foundBy: FoundByLease, base: "https://" + a, cfg: base, lease: l,
				serverNames: serverNames(base, hostOnly("https://"+a), hostOnly(primaryBase))}
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
	addExplicit := func(foundBy, b string, cfg *rest.Config, names []string) {
		hp := HostPort(b)
		if t := byHostPort[hp]; t != nil && t.foundBy == FoundByLease && pathOf(b) == "" {
			t.foundBy, t.base, t.cfg, t.serverNames = foundBy, b, cfg, names
			t.matchedBy = "the URL's host:port is the lease's peer-advertise address"
			seen[b] = true
			return
		}
		if seen[b] {
			p.warnings = append(p.warnings, fmt.Sprintf("%s is given twice; reading it once", b))
			return
		}
		seen[b] = true
		t := &target{foundBy: foundBy, base: b, cfg: cfg, serverNames: names}
		if l := p.leaseByAddr[hp]; l != nil && !claimed(l) {
			t.lease, t.matchedBy = l, "the URL's host:port is the lease's peer-advertise address"
		}
		p.targets = append(p.targets, t)
		byHostPort[hp] = t
	}
	for _, e := range endpoints {
		addExplicit(FoundByEndpoint, e, base, serverNames(base, hostOnly(e), hostOnly(primaryBase)))
	}
	for _, c := range contexts {
		addExplicit(FoundByContext, c.base, c.cfg, serverNames(c.cfg, hostOnly(c.base)))
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
		p.targets = append(p.targets, &target{foundBy: FoundByContext, base: primaryBase, cfg: base})
	}
	return p
}

// serverNames lists the TLS server names to try for a server at host: the one the user set
// (--tls-server-name or the kubeconfig's tls-server-name) alone, else the host itself, then the
// other hosts given (the kubeconfig server's), then kubernetes.default.svc.
func serverNames(cfg *rest.Config, hosts ...string) []string {
	if cfg.TLSClientConfig.ServerName != "" {
		return []string{cfg.TLSClientConfig.ServerName}
	}
	if cfg.TLSClientConfig.Insecure {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, h := range append(hosts, defaultServingName) {
		if h != "" && !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	return out
}

// normAddr normalises an ip:port (or host:port) so "[::1]:6443" and "::1" forms compare; ""
// when there is no port.
func normAddr(a string) string {
	if a == "" {
		return ""
	}
	h, p, err := net.SplitHostPort(a)
	if err != nil || p == "" {
		return ""
	}
	if ip := net.ParseIP(h); ip != nil {
		h = ip.String()
	}
	return net.JoinHostPort(h, p)
}

func pathOf(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return u.EscapedPath()
}
