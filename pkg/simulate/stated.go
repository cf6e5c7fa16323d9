package simulate

import (
	"fmt"
	"net"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// StatedConfig is a server's peer-proxy configuration as its installer states it (a
// kubeadm-config ConfigMap, a static pod manifest: snapshot.Server.Stated), and where what the
// server does disagrees with it. The server wins for its routing now; an upgrade starts the
// new binary with the stated flags.
type StatedConfig struct {
	Server string `json:"server"`
	Source string `json:"source"`
	// Config says in words what the flags set up on the server's version.
	Config string `json:"config"`
	// RuntimeConfig is the stated --runtime-config ("" for none).
	RuntimeConfig string `json:"runtimeConfig"`
	// Disagreements say where what the server does differs from the statement.
	Disagreements []string `json:"disagreements,omitempty"`
	// RuntimeConfigDisagreement is the one of Disagreements that says what the server serves
	// differs from what the stated --runtime-config gives ("" when they agree).
	RuntimeConfigDisagreement string `json:"-"`
	// Error says why the stated flags could not be read (a hand-edited snapshot); the server
	// is then treated as stating nothing.
	Error string `json:"error,omitempty"`
}

// CompareStated reads srv's stated flags and compares them with what the snapshot observed of
// it: the gate and the filter (readyz hooks, identity lease), what it serves (its
// --runtime-config), and the peer address it publishes. ok is false when nothing is stated.
func CompareStated(srv *snapshot.Server) (out StatedConfig, ok bool) {
	if c := configOf(srv); c.stated != nil {
		return *c.stated, true
	}
	return out, false
}

// serverConfig is a server's runtime configuration as a report reads it, once: the
// configuration inferred from what it serves (nil for an unreachable server), and its stated
// flags compared with what it does (nil when nothing is stated).
type serverConfig struct {
	observed *ObservedConfig
	stated   *StatedConfig
}

// configOf reads srv's runtime configuration: what it serves and its version's profile, its
// stated flags on that version, the inference, and the comparison.
func configOf(srv *snapshot.Server) serverConfig {
	var out serverConfig
	served := servedOf(srv)
	stated := statedOn(srv, served.version)
	if srv.Reachable {
		obs := inferRuntimeConfig(served)
		out.observed = &obs
	}
	if srv.Stated != nil {
		sc := compareStated(srv, stated, served, out.observed)
		out.stated = &sc
	}
	return out
}

// compareStated is CompareStated of srv, whose stated flags are stated, what it serves served,
// and its inferred configuration observed (nil when it is not reachable: nothing to compare).
// The disagreements are said in order: the gate, the filter (each with the evidence it is
// observed on), what it serves, the address it publishes.
func compareStated(srv *snapshot.Server, stated statedFlags, served servedSet, observed *ObservedConfig) StatedConfig {
	out := StatedConfig{Server: srv.Name, Source: srv.Stated.Source}
	if stated.err != nil {
		out.Error = stated.err.Error()
		return out
	}
	sp, v, pp := stated.proxy, served.version, srv.PeerProxy
	var topics []snapshot.EvidenceTopics // of the gate's and the filter's disagreement
	address := ""
	if observed != nil {
		if pp.GateEnabled != nil && *pp.GateEnabled != sp.Gate {
			topics = append(topics, snapshot.TopicGate)
			out.Disagreements = append(out.Disagreements, fmt.Sprintf("stated gate %s %s, but the server shows it %s", mvp.GateName, onOff(sp.Gate), onOff(*pp.GateEnabled)))
		}
		if pp.FilterInstalled != nil && *pp.FilterInstalled != sp.Filter() {
			topics = append(topics, snapshot.TopicFilter)
			out.Disagreements = append(out.Disagreements, fmt.Sprintf("stated proxy filter %s, but the server shows it %s", onOff(sp.Filter()), onOff(*pp.FilterInstalled)))
		}
		if addr, known := sp.PublishedPeerAddress(v); known && srv.PeerAdvertiseAddress != "" && !sameAddress(addr, srv.PeerAdvertiseAddress) {
			address = fmt.Sprintf("stated --%s and --%s publish %s, but its identity lease publishes %s", mvp.FlagAdvertiseAddress, mvp.FlagSecurePort, addr, srv.PeerAdvertiseAddress)
		}
		out.RuntimeConfigDisagreement = runtimeConfigDisagreement(*observed, served, sp.RuntimeConfig)
	}
	out.Config, out.RuntimeConfig = sp.Words(v), sp.RuntimeConfig.String()
	for i, about := range topics {
		var ev []string
		for j, e := range pp.Evidence {
			if pp.KindOf(j).Topics.Has(about) {
				ev = append(ev, e)
			}
		}
		out.Disagreements[i] += " (" + strings.Join(ev, "; ") + ")"
	}
	for _, d := range []string{out.RuntimeConfigDisagreement, address} {
		if d != "" {
			out.Disagreements = append(out.Disagreements, d)
		}
	}
	return out
}

// runtimeConfigDisagreement compares what a server serves by itself (served, inferred as obs)
// with what its version's profile serves under the stated --runtime-config; "" when they agree
// or cannot be compared.
func runtimeConfigDisagreement(obs ObservedConfig, served servedSet, stated mvp.RuntimeConfig) string {
	if obs.Unknown != "" {
		return ""
	}
	p := served.profile
	if p.Full == nil && !stated.IsDefault() {
		return ""
	}
	predicted := p.Resources
	if !stated.IsDefault() {
		predicted, _ = stated.Apply(p.Resources, p.Full)
	}
	diff := misfits(served.builtin, predicted)
	if len(diff) == 0 {
		return ""
	}
	seen := "fits no --runtime-config at all"
	switch {
	case len(obs.Misfits) > 0:
	case obs.RuntimeConfig == "":
		seen = "is the defaults (no --runtime-config)"
	default:
		seen = "fits --runtime-config=" + obs.RuntimeConfig
	}
	gvrs := "GVRs differ"
	if len(diff) == 1 {
		gvrs = "GVR differs"
	}
	return fmt.Sprintf("stated %s, but what it serves %s (%d %s, e.g. %s)", orDefaults(stated.String()), seen, len(diff), gvrs, strings.Join(diff[:min(3, len(diff))], "; "))
}

func orDefaults(rc string) string {
	if rc == "" {
		return "no --runtime-config"
	}
	return "--runtime-config=" + rc
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// sameAddress compares two host:port addresses, IPs by value.
func sameAddress(a, b string) bool {
	ha, pa, errA := net.SplitHostPort(a)
	hb, pb, errB := net.SplitHostPort(b)
	if errA != nil || errB != nil {
		return a == b
	}
	if ia, ib := net.ParseIP(ha), net.ParseIP(hb); ia != nil && ib != nil {
		return ia.Equal(ib) && pa == pb
	}
	return strings.EqualFold(ha, hb) && pa == pb
}

// StatedUpgrade is how a server upgraded to version v starts with its stated flags; ok is
// false when it states nothing usable.
func StatedUpgrade(srv *snapshot.Server, v snapshot.Version) (mvp.StatedProxy, bool) {
	s := statedOn(srv, v)
	return s.proxy, s.ok
}

// line is the configuration as a STATED line; servers that state the same share it.
func (c StatedConfig) line() string {
	switch {
	case c.Error != "":
		return fmt.Sprintf("%s (%s): cannot be read (%s): not used", mvp.StatedEvidence, c.Source, c.Error)
	case len(c.Disagreements) > 0:
		return fmt.Sprintf("%s (%s): %s — the server disagrees, and wins: %s", mvp.StatedEvidence, c.Source, c.Config, strings.Join(c.Disagreements, "; "))
	}
	return fmt.Sprintf("%s (%s): %s", mvp.StatedEvidence, c.Source, c.Config)
}
