package profilerecord

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/pkg/basis"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Derive makes the provisional profile of facts.Release from base, the bytes of the newest
// recorded profile (the release before), and the facts its published modules state
// (ExtractUpstream): base's servers with the removed kinds and group/versions taken out, the
// peer-proxy gate's default of the release, and a third server, what --runtime-config=api/all=true
// serves with the one-release escape (mvp.ServeRemovedAPIsEnv=true). What the modules cannot
// say is assumed to be as in base, and the profile says so (snapshot.Provisional). The same
// inputs give the same bytes.
func Derive(base []byte, facts *UpstreamFacts) (*snapshot.Snapshot, error) {
	p, err := profile.Decode(base)
	if err != nil {
		return nil, fmt.Errorf("base profile: %w", err)
	}
	if p.Provisional != nil {
		return nil, fmt.Errorf("base profile %s is itself provisional: derive from a recorded one", p.Version)
	}
	if p.Full == nil {
		return nil, fmt.Errorf("base profile %s has no %q server: record it again with make profiles", p.Version, profile.ServerAllAPIs)
	}
	minor, err := releaseMinor(facts.Release)
	if err != nil {
		return nil, err
	}
	if p.Version.Major != 1 || p.Version.Minor+1 != minor {
		return nil, fmt.Errorf("the facts are of %s, the base profile is %s: derive from the release before", facts.Release, p.Version)
	}
	release, baseRelease := facts.Modules[:2], facts.Modules[2:]
	for i, want := range []string{apiModule, apiserverModule, apiModule, apiserverModule} {
		if facts.Modules[i].Path != want {
			return nil, fmt.Errorf("facts: module %d is %s, want %s", i, facts.Modules[i].Path, want)
		}
	}
	if want := "v0." + strings.TrimPrefix(p.Version.String(), "v1."); baseRelease[0].Version != want {
		return nil, fmt.Errorf("facts: the base modules are %s, the base profile %s wants %s", baseRelease[0].Version, p.Version, want)
	}

	d := deriver{removedKind: map[string]KindFact{}, removedGV: map[string]KindFact{}, dropped: map[string][]string{}}
	for _, k := range facts.Removed {
		d.removedKind[k.GroupVersion()+"/"+k.Kind] = k
	}
	for _, k := range facts.GroupVersionsRemoved {
		d.removedGV[k.GroupVersion()] = k
	}
	def := d.keep(p.Resources, false)
	full := d.keep(p.Full, false)
	fullServeRemoved := d.keep(p.Full, true)
	var ks *kubeServers
	if facts.Kubernetes != nil {
		s := newKubeDeriver(p, facts, d.removedGV).servers()
		ks = &s
		def, full, fullServeRemoved = s.def, s.full, s.serveRemoved
	}

	version := fmt.Sprintf("v1.%d.0", minor)
	prov := d.provisional(p, facts, ks, minor)
	g := facts.ProxyGate

	at, err := time.Parse(time.RFC3339, release[0].Time)
	if err != nil {
		return nil, fmt.Errorf("facts: %s has no publication time: %w", release[0].ID(), err)
	}
	snap := snapshot.New()
	snap.TakenAt = at.UTC().Truncate(24 * time.Hour)
	mods := release[0].ID() + ", " + release[1].ID()
	if ks != nil {
		mods += ", " + facts.Kubernetes.Module.ID()
	}
	snap.Source = fmt.Sprintf("%s %s: derived by make profiles-provisional from the recorded %s profile and the published %s; no %s kube-apiserver was run",
		basis.ProvisionalMark, version, p.Version, mods, facts.Release)
	snap.Provisional = prov
	gate := g.Default
	srv := func(name string, rs []snapshot.Resource) snapshot.Server {
		return snapshot.Server{Name: name, Version: version, EmulatedVersion: facts.Release, Reachable: true,
			DiscoveryFormat: p.Server.DiscoveryFormat, Resources: rs}
	}
	snap.Servers = []snapshot.Server{srv(profile.ServerDefault, def), srv(profile.ServerAllAPIs, full),
		srv(profile.ServerServeRemoved, fullServeRemoved)}
	snap.Servers[0].PeerProxy = snapshot.PeerProxy{GateEnabled: &gate,
		Evidence: []string{fmt.Sprintf("provisional: %s is %s by default in %s (%s)", g.Name, onOff(gate), facts.Release, g.Cite)}}
	if err := snap.Validate(); err != nil {
		return nil, err
	}
	return snap, nil
}

// provisional is what the profile says of its sources: the modules, each fact derived with its
// line, and what is not derived. ks is nil when no k8s.io/kubernetes module was read.
func (d *deriver) provisional(p profile.Profile, facts *UpstreamFacts, ks *kubeServers, minor int) *snapshot.Provisional {
	release, baseRelease := facts.Modules[:2], facts.Modules[2:]
	prov := &snapshot.Provisional{Base: p.Version.String(), Derived: []string{}, NotDerived: []string{}}
	for _, m := range facts.Modules {
		prov.Modules = append(prov.Modules, m.ID()+" "+m.Sum)
	}
	if ks != nil {
		prov.Modules = append(prov.Modules, facts.Kubernetes.Module.ID()+" "+facts.Kubernetes.Module.Sum)
	}
	prov.Derived = append(prov.Derived, d.removedLines(facts, minor)...)
	for _, k := range facts.GroupVersionsRemoved {
		prov.Derived = append(prov.Derived, fmt.Sprintf("%s: no longer in %s (it was at %s); %s", k.GroupVersion(), release[0].ID(), k.Cite, d.servedLine(k.GroupVersion())))
	}
	g := facts.ProxyGate
	prov.Derived = append(prov.Derived, fmt.Sprintf("%s: %s by default (%s%s) (%s)", g.Name, onOff(g.Default), g.Stage, lockedWord(g.Locked), g.Cite))
	for _, g := range facts.GatesAdded {
		prov.Derived = append(prov.Derived, fmt.Sprintf("feature gate %s is new: %s by default (%s) (%s); it decides nothing a profile holds", g.Name, onOff(g.Default), g.Stage, g.Cite))
	}
	for _, g := range facts.GatesRemoved {
		prov.Derived = append(prov.Derived, fmt.Sprintf("feature gate %s is deleted (it was at %s): a --feature-gates naming it stops kube-apiserver %s from starting (unrecognized feature gate)", g.Name, g.Cite, facts.Release))
	}
	if ks != nil {
		prov.Derived = append(prov.Derived, ks.derived...)
	}
	for _, k := range facts.Introduced {
		if ks == nil {
			prov.NotDerived = append(prov.NotDerived, fmt.Sprintf("%s %s is new in %s (%s): its resource name, scope and verbs are registered in k8s.io/kubernetes, which publishes no %s module: it is not in the profile", k.GroupVersion(), k.Kind, facts.Release, k.Cite, facts.Release))
		}
	}
	for _, k := range facts.GroupVersionsAdded {
		if ks == nil {
			prov.NotDerived = append(prov.NotDerived, fmt.Sprintf("%s is new in %s (%s): what kube-apiserver serves of it is registered in k8s.io/kubernetes, which publishes no %s module: it is not in the profile", k.GroupVersion(), release[0].ID(), k.Cite, facts.Release))
		}
	}
	if pp := facts.PeerProxy; pp.Identical {
		prov.Derived = append(prov.Derived, fmt.Sprintf("the peer proxy: k8s.io/apiserver %s is byte-identical in %s and %s (%d files): header, exclusions, 503s, peer choice and timings as in %s",
			pp.Dir, release[1].ID(), baseRelease[1].Version, pp.Files, p.Version.MinorString()))
	} else {
		prov.NotDerived = append(prov.NotDerived, fmt.Sprintf("the peer proxy: k8s.io/apiserver %s changed between %s and %s (%s): mvpctl routes %s by the rules it knows; read the change",
			pp.Dir, baseRelease[1].Version, release[1].ID(), strings.Join(pp.Changed, ", "), facts.Release))
	}
	if ks != nil {
		prov.NotDerived = append(prov.NotDerived, ks.notDerived...)
	} else {
		prov.NotDerived = append(prov.NotDerived,
			fmt.Sprintf("everything else %s serves, and which group/versions are on by default: registered in k8s.io/kubernetes (no %s module is published), assumed as in %s", facts.Release, facts.Release, p.Version))
	}
	return prov
}

// MarshalProvisional is a derived profile's file bytes.
func MarshalProvisional(s *snapshot.Snapshot) ([]byte, error) {
	b, err := s.Marshal(true)
	if err != nil {
		return nil, err
	}
	if _, err := profile.Decode(b); err != nil {
		return nil, fmt.Errorf("the derived profile does not load as one: %w", err)
	}
	return b, nil
}

type deriver struct {
	removedKind map[string]KindFact // group/version/Kind
	removedGV   map[string]KindFact
	dropped     map[string][]string // group/version → resources dropped from the base's full set
}

// keep is rs without what the release stops serving; serveRemoved keeps the kinds the
// one-release escape still serves (not those of a deleted group/version).
func (d *deriver) keep(rs []snapshot.Resource, serveRemoved bool) []snapshot.Resource {
	out := []snapshot.Resource{}
	for _, r := range rs {
		gv := r.GroupVersion()
		_, kindGone := d.removedKind[gv+"/"+r.Kind]
		if _, gvGone := d.removedGV[gv]; gvGone || (kindGone && !serveRemoved) {
			if !serveRemoved && !contains(d.dropped[gv], r.Resource) {
				d.dropped[gv] = append(d.dropped[gv], r.Resource)
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// removedLines say, per group/version, which kinds the release removes and what of them the
// base served.
func (d *deriver) removedLines(facts *UpstreamFacts, minor int) []string {
	byGV := map[string][]KindFact{}
	var gvs []string
	for _, k := range facts.Removed {
		if byGV[k.GroupVersion()] == nil {
			gvs = append(gvs, k.GroupVersion())
		}
		byGV[k.GroupVersion()] = append(byGV[k.GroupVersion()], k)
	}
	sort.Strings(gvs)
	var out []string
	for _, gv := range gvs {
		var kinds, lines []string
		for _, k := range byGV[gv] {
			kinds = append(kinds, k.Kind)
			lines = append(lines, k.Cite[strings.LastIndex(k.Cite, ":")+1:])
		}
		file := byGV[gv][0].Cite[:strings.LastIndex(byGV[gv][0].Cite, ":")]
		out = append(out, fmt.Sprintf("%s: %s removed in 1.%d (%s:%s); not served even when --runtime-config enables them, unless %s=true (k8s.io/apiserver pkg/server/deleted_kinds.go:150-171, server %q); %s",
			gv, strings.Join(kinds, ", "), minor, file, strings.Join(lines, ","), mvp.ServeRemovedAPIsEnv, profile.ServerServeRemoved, d.servedLine(gv)))
	}
	return out
}

// servedLine says which resources of gv the base profile served (api/all=true) and the derived
// one drops.
func (d *deriver) servedLine(gv string) string {
	if rs := d.dropped[gv]; len(rs) > 0 {
		sort.Strings(rs)
		return "dropped: " + strings.Join(rs, ", ")
	}
	return "the base profile serves none of it"
}

func lockedWord(locked bool) string {
	if locked {
		return ", locked"
	}
	return ", not locked"
}
