package simulate

import (
	"fmt"
	"sort"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// ObservedConfig is a server's --runtime-config as inferred from what it serves: the
// configuration that, applied to its version's default set, gives exactly what it serves.
type ObservedConfig struct {
	Server string `json:"server"`
	// Profile is the version profile compared against (same minor; patch releases do not
	// change what a binary can serve in a way the proxy sees).
	Profile string            `json:"profile,omitempty"`
	Config  mvp.RuntimeConfig `json:"config"`
	// RuntimeConfig is Config as the flag value ("" for the defaults).
	RuntimeConfig string `json:"runtimeConfig"`
	// Misfits are group/version/resources no runtime-config explains: served although the
	// configuration does not switch them on, or missing although it does (e.g. a resource
	// missing inside a served group/version). They are reported, never rounded away.
	Misfits []string `json:"misfits,omitempty"`
	// Unknown says why nothing could be inferred (no profile for the version, or a profile
	// without its full set); empty when Config is meaningful.
	Unknown string `json:"unknown,omitempty"`
}

// servedSet is what a server serves, read once for the inference of its --runtime-config:
// its binary's own resources (builtin) apart from the cluster's (CRDs, aggregated APIs, a
// group only an add-on serves: clusterScoped), and its version with that version's profile
// (unknown says why there is none).
type servedSet struct {
	server           string
	builtin, cluster []snapshot.Resource
	version          snapshot.Version
	profile          profile.Profile
	unknown          string
}

// servedOf reads what srv serves, and its version's profile.
func servedOf(srv *snapshot.Server) servedSet {
	out := servedSet{server: srv.Name}
	for _, r := range srv.Resources {
		if clusterScoped(r) {
			out.cluster = append(out.cluster, r)
		} else {
			out.builtin = append(out.builtin, r)
		}
	}
	v, err := snapshot.ParseVersion(srv.Version)
	if err == nil {
		out.version = v
		out.profile, err = profile.Lookup(v.MinorString())
	}
	if err != nil {
		out.unknown = err.Error()
	}
	return out
}

// InferRuntimeConfig compares what srv serves by itself (its built-in resources: CRDs and
// aggregated APIs belong to the cluster) with its version's default and full sets, and returns
// the shortest configuration that explains it: switches on top of the defaults, or api/all=true
// with switches off. Whatever that configuration does not explain is listed as a misfit.
func InferRuntimeConfig(srv *snapshot.Server) ObservedConfig {
	return inferRuntimeConfig(servedOf(srv))
}

// inferRuntimeConfig is InferRuntimeConfig of what a server serves, read once.
func inferRuntimeConfig(s servedSet) ObservedConfig {
	out := ObservedConfig{Server: s.server}
	if s.unknown != "" {
		out.Unknown = s.unknown
		return out
	}
	p, served := s.profile, s.builtin
	out.Profile = p.Version.String()
	if len(misfits(served, p.Resources)) == 0 {
		return out // exactly the default set: no --runtime-config
	}
	if p.Full == nil {
		out.Unknown = fmt.Sprintf("the profile of %s does not record the full set (api/all=true): regenerate it with `make profiles`", p.Version)
		return out
	}
	sGV, dGV, fGV := groupVersions(served), groupVersions(p.Resources), groupVersions(p.Full)
	onDefaults := mvp.RuntimeConfig{Enabled: minus(sGV, dGV), Disabled: minus(dGV, sGV)}
	allAPIs := mvp.RuntimeConfig{AllAPIs: true, Disabled: minus(fGV, sGV), Enabled: minus(sGV, fGV)}
	out.Config = onDefaults
	if entries(allAPIs) < entries(onDefaults) {
		out.Config = allAPIs
	}
	out.RuntimeConfig = out.Config.String()
	predicted, unknown := out.Config.Apply(p.Resources, p.Full)
	out.Misfits = misfits(served, predicted)
	for _, gv := range unknown {
		out.Misfits = append(out.Misfits, gv+" (served, but "+p.Version.String()+" has no such group/version)")
	}
	return out
}

func entries(c mvp.RuntimeConfig) int {
	n := len(c.Enabled) + len(c.Disabled)
	if c.AllAPIs {
		n++
	}
	return n
}

func groupVersions(rs []snapshot.Resource) map[string]bool {
	out := map[string]bool{}
	for _, r := range rs {
		out[r.GroupVersion()] = true
	}
	return out
}

// minus returns the sorted members of a that are not in b.
func minus(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// misfits lists the GVRs on which served and predicted differ.
func misfits(served, predicted []snapshot.Resource) []string {
	s, p := map[snapshot.GVR]bool{}, map[snapshot.GVR]bool{}
	for _, r := range served {
		s[r.GVR()] = true
	}
	for _, r := range predicted {
		p[r.GVR()] = true
	}
	var out []string
	for g := range s {
		if !p[g] {
			out = append(out, g.String()+" (served, but the configuration does not switch it on)")
		}
	}
	for g := range p {
		if !s[g] {
			out = append(out, g.String()+" (not served, although the configuration switches its group/version on)")
		}
	}
	sort.Strings(out)
	return out
}
