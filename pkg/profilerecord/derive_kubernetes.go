package profilerecord

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// kubeServers is what the k8s.io/kubernetes facts make of the three provisional servers, and
// the lines that say so.
type kubeServers struct {
	def, full, serveRemoved []snapshot.Resource
	derived, notDerived     []string
}

// kubeDeriver applies KubernetesFacts: a resource is served by api-all (every group/version
// enabled) when every feature gate its registration tests is at the state it needs by
// default and k8s.io/api's lifecycle does not remove its kind by the release; by default
// when instance.go also lists its group/version on by default; by api-all-serve-removed also
// when its kind is removed in the release itself (deleted_kinds.go's one-release escape).
type kubeDeriver struct {
	facts   *UpstreamFacts
	kf      *KubernetesFacts
	base    profile.Profile
	gates   map[string]GateFact
	gvs     map[string]GroupVersionFact
	groups  map[string]ProviderFact
	removed map[string]KindFact // group/versions k8s.io/api no longer has
}

func newKubeDeriver(base profile.Profile, facts *UpstreamFacts, removedGV map[string]KindFact) *kubeDeriver {
	k := &kubeDeriver{facts: facts, kf: facts.Kubernetes, base: base, gates: map[string]GateFact{},
		gvs: map[string]GroupVersionFact{}, groups: map[string]ProviderFact{}, removed: removedGV}
	for _, g := range k.kf.Gates {
		k.gates[g.Name] = g
	}
	for _, g := range k.kf.GroupVersions {
		if _, ok := k.gvs[g.GroupVersion()]; !ok {
			k.gvs[g.GroupVersion()] = g
		}
	}
	for _, p := range k.kf.Providers {
		k.groups[p.Group] = p
	}
	return k
}

// gatesOn says whether every gate condition of r holds at the gates' defaults.
func (k *kubeDeriver) gatesOn(r ResourceFact) bool {
	for _, c := range r.Gates {
		if k.gates[c.Name].Default != c.Enabled {
			return false
		}
	}
	return true
}

func (k *kubeDeriver) servers() kubeServers {
	var s kubeServers
	for _, r := range k.kf.Resources {
		if _, gone := k.removed[r.GroupVersion()]; gone || !k.gatesOn(r) {
			continue
		}
		res := snapshot.Resource{Group: r.Group, Version: r.Version, Resource: r.Resource, Kind: r.Kind, Namespaced: r.Namespaced,
			Verbs: append([]string{}, r.Verbs...), Subresources: append([]string(nil), r.Subresources...), Source: snapshot.SourceBuiltin}
		if r.RemovedIn == "" || r.RemovedIn == k.facts.Release {
			s.serveRemoved = append(s.serveRemoved, res)
		}
		if r.RemovedIn != "" {
			continue
		}
		s.full = append(s.full, res)
		if k.gvs[r.GroupVersion()].Default {
			s.def = append(s.def, res)
		}
	}
	var kept []string
	for _, pair := range []struct {
		from []snapshot.Resource
		to   []*[]snapshot.Resource
	}{{k.base.Resources, []*[]snapshot.Resource{&s.def}}, {k.base.Full, []*[]snapshot.Resource{&s.full, &s.serveRemoved}}} {
		for _, r := range pair.from {
			if _, registered := k.groups[r.Group]; registered {
				continue
			}
			if _, gone := k.removed[r.GroupVersion()]; gone {
				continue
			}
			for _, to := range pair.to {
				*to = append(*to, r)
			}
			if !contains(kept, r.Group) {
				kept = append(kept, r.Group)
			}
		}
	}
	for _, l := range []*[]snapshot.Resource{&s.def, &s.full, &s.serveRemoved} {
		k.inBaseOrder(*l)
	}
	s.derived = k.lines(s)
	sort.Strings(kept)
	if len(kept) > 0 {
		s.notDerived = append(s.notDerived, fmt.Sprintf("%s: served by what kube-apiserver embeds besides its storage providers (k8s.io/apiextensions-apiserver, k8s.io/kube-aggregator), not read: assumed as in %s",
			strings.Join(kept, ", "), k.base.Version))
	}
	s.notDerived = append(s.notDerived, fmt.Sprintf("what only a running %s kube-apiserver shows: a registration that fails at startup, feature gates changed by --emulated-version or by their dependencies, the discovery document's order; make profiles records them once the prerelease can be built", k.facts.Release))
	return s
}

// inBaseOrder orders resources as the base profile lists them (discovery's order), those it
// does not have after them in the facts' order.
func (k *kubeDeriver) inBaseOrder(rs []snapshot.Resource) {
	at := map[string]int{}
	for i, r := range k.base.Full {
		at[r.GroupVersion()+"/"+r.Resource] = i
	}
	pos := func(r snapshot.Resource) int {
		if i, ok := at[r.GroupVersion()+"/"+r.Resource]; ok {
			return i
		}
		return len(at)
	}
	sort.SliceStable(rs, func(i, j int) bool { return pos(rs[i]) < pos(rs[j]) })
}

func servedBy(s kubeServers, gv, resource string) []string {
	var out []string
	for _, srv := range []struct {
		name string
		rs   []snapshot.Resource
	}{{profile.ServerDefault, s.def}, {profile.ServerAllAPIs, s.full}, {profile.ServerServeRemoved, s.serveRemoved}} {
		for _, r := range srv.rs {
			if r.GroupVersion() == gv && r.Resource == resource {
				out = append(out, srv.name)
			}
		}
	}
	return out
}

// lines say what the facts give: a summary, then every resource whose serving or shape differs
// from the base profile, then where each kind and group/version new in k8s.io/api is served.
func (k *kubeDeriver) lines(s kubeServers) []string {
	on := 0
	for _, g := range k.kf.GroupVersions {
		if g.Default {
			on++
		}
	}
	out := []string{fmt.Sprintf("%s registers %d resources through the %d storage providers of %s StorageProviders; its lists turn %d group/versions on by default and %d off: the default server serves %d resources, %s %d, %s %d",
		k.kf.Module.ID(), len(k.kf.Resources), len(k.kf.Providers), instanceFile, on, len(k.kf.GroupVersions)-on,
		len(s.def), profile.ServerAllAPIs, len(s.full), profile.ServerServeRemoved, len(s.serveRemoved))}
	baseDef, baseFull := index(k.base.Resources), index(k.base.Full)
	for _, r := range k.kf.Resources {
		key := r.GroupVersion() + "/" + r.Resource
		b, inBase := baseFull[key]
		_, inBaseDef := baseDef[key]
		now := servedBy(s, r.GroupVersion(), r.Resource)
		same := inBase && contains(now, profile.ServerAllAPIs) && inBaseDef == contains(now, profile.ServerDefault) &&
			b.Kind == r.Kind && b.Namespaced == r.Namespaced && strings.Join(b.Verbs, ",") == strings.Join(r.Verbs, ",") &&
			strings.Join(b.Subresources, ",") == strings.Join(r.Subresources, ",")
		if !same && (inBase || !(r.RemovedIn != "" && len(now) == 0)) {
			out = append(out, k.resourceLine(r, now, inBase))
		}
	}
	registered := map[string]bool{}
	for _, r := range k.kf.Resources {
		registered[r.GroupVersion()+"/"+r.Resource] = true
	}
	for _, r := range k.base.Full {
		if _, ours := k.groups[r.Group]; ours && !registered[r.GroupVersion()+"/"+r.Resource] {
			out = append(out, fmt.Sprintf("%s %s (%s): served by the base profile's %s; no storage provider of %s registers it: dropped",
				r.GroupVersion(), r.Resource, r.Kind, profile.ServerAllAPIs, k.kf.Module.ID()))
		}
	}
	for _, kf := range k.facts.Introduced {
		out = append(out, k.placed(kf, s))
	}
	for _, gv := range k.facts.GroupVersionsAdded {
		out = append(out, k.placed(gv, s))
	}
	return out
}

func index(rs []snapshot.Resource) map[string]snapshot.Resource {
	out := map[string]snapshot.Resource{}
	for _, r := range rs {
		out[r.GroupVersion()+"/"+r.Resource] = r
	}
	return out
}

// resourceLine says one registered resource: its shape, each line it is read from, and who serves it.
func (k *kubeDeriver) resourceLine(r ResourceFact, servers []string, inBase bool) string {
	scope := "cluster-scoped"
	if r.Namespaced {
		scope = "namespaced"
	}
	shape := fmt.Sprintf("%s, %s, verbs %s", r.Kind, scope, strings.Join(r.Verbs, ","))
	if len(r.Subresources) > 0 {
		shape += ", subresources " + strings.Join(r.Subresources, ",")
	}
	why := []string{k.gvDefault(r.GroupVersion())}
	for _, c := range r.Gates {
		g := k.gates[c.Name]
		why = append(why, fmt.Sprintf("registered only with feature gate %s %s (%s), which is %s by default in %s (%s%s) (%s)", c.Name, onOff(c.Enabled), c.Cite, onOff(g.Default), k.facts.Release, g.Stage, lockedWord(g.Locked), g.Cite))
	}
	if r.RemovedIn != "" {
		why = append(why, fmt.Sprintf("its kind is removed in %s (%s)", r.RemovedIn, r.RemovedCite))
	}
	served := "served by none of the provisional servers"
	if len(servers) > 0 {
		served = "served by " + strings.Join(servers, ", ")
	}
	was := fmt.Sprintf("new since %s", k.base.Version)
	if inBase {
		was = fmt.Sprintf("changed since %s", k.base.Version)
	}
	return fmt.Sprintf("%s %s (%s; %s): registered at %s (kind %s, scope %s, storage %s); %s; %s",
		r.GroupVersion(), r.Resource, shape, was, r.Cite, r.KindCite, r.ScopeCite, r.TypeCite, strings.Join(why, "; "), served)
}

func (k *kubeDeriver) gvDefault(gv string) string {
	if g, ok := k.gvs[gv]; ok {
		return fmt.Sprintf("%s is %s by default (%s, %s)", gv, onOff(g.Default), g.List, g.Cite)
	}
	return fmt.Sprintf("%s is in none of %s's lists: off by default", gv, instanceFile)
}

// placed says where a kind (or a group/version, Kind empty) new in k8s.io/api is served, or
// why no provisional server serves it.
func (k *kubeDeriver) placed(n KindFact, s kubeServers) string {
	what := n.GroupVersion()
	if n.Kind != "" {
		what += " " + n.Kind
	}
	var regs []string
	for _, r := range k.kf.Resources {
		if r.GroupVersion() == n.GroupVersion() && (n.Kind == "" || r.Kind == n.Kind) {
			served := strings.Join(servedBy(s, r.GroupVersion(), r.Resource), ", ")
			if served == "" {
				served = "none of the provisional servers"
			}
			regs = append(regs, fmt.Sprintf("registered as %s (%s), served by %s", r.Resource, r.Cite, served))
		}
	}
	if len(regs) > 0 {
		return fmt.Sprintf("%s is new in %s (%s): %s; see its line above", what, k.facts.Release, n.Cite, strings.Join(regs, "; "))
	}
	where := fmt.Sprintf("no storage provider of %s StorageProviders registers %s", instanceFile, n.Group)
	if p, ok := k.groups[n.Group]; ok {
		where = fmt.Sprintf("the storage provider of %s (%s) registers no %s resource", n.Group, p.Cite, n.Version)
	}
	return fmt.Sprintf("%s is new in %s (%s): %s has no storage for it: %s; %s: no provisional server serves it: without a storage no --runtime-config makes kube-apiserver serve it",
		what, k.facts.Release, n.Cite, k.kf.Module.ID(), where, k.gvDefault(n.GroupVersion()))
}
