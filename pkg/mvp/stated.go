package mvp

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// The kube-apiserver flags that decide the peer proxy, by name without dashes
// (docs/behaviour.md §1, §4.3, §8).
const (
	FlagFeatureGates      = "feature-gates"
	FlagRuntimeConfig     = "runtime-config"
	FlagPeerCAFile        = "peer-ca-file"
	FlagPeerAdvertiseIP   = "peer-advertise-ip"
	FlagPeerAdvertisePort = "peer-advertise-port"
	FlagAdvertiseAddress  = "advertise-address"
	FlagSecurePort        = "secure-port"
)

// GateName is the Mixed Version Proxy's feature gate.
const GateName = "UnknownVersionInteroperabilityProxy"

// StatedFlagNames are the flags a snapshot records of an installer's configuration.
var StatedFlagNames = []string{FlagAdvertiseAddress, FlagFeatureGates, FlagPeerAdvertiseIP, FlagPeerAdvertisePort, FlagPeerCAFile, FlagRuntimeConfig, FlagSecurePort}

// mergedFlags are map-valued: kube-apiserver merges every occurrence (a key given twice takes
// its last value). Any other flag given twice takes its last value.
var mergedFlags = map[string]bool{FlagFeatureGates: true, FlagRuntimeConfig: true}

// CommandLineFlags reads a kube-apiserver command line (the arguments after the binary:
// "--name=value", or "--name value"; kube-apiserver takes no positional argument, so a word
// that is not a flag is the value of the flag before it) and returns the StatedFlagNames it
// sets, as kube-apiserver reads them, sorted by name. A malformed --feature-gates or
// --runtime-config is an error, as it stops kube-apiserver at start-up.
func CommandLineFlags(args []string) ([]snapshot.Flag, error) {
	values := map[string][]string{}
	last := ""
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			if last != "" {
				values[last] = append(values[last], a)
				last = ""
			}
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		last = ""
		if !hasVal {
			last = name
			continue
		}
		values[name] = append(values[name], val)
	}
	var out []snapshot.Flag
	for _, name := range StatedFlagNames {
		vs := values[name]
		if len(vs) == 0 {
			continue
		}
		val := vs[len(vs)-1]
		if mergedFlags[name] {
			m, err := mergeMapFlag(name, vs)
			if err != nil {
				return nil, err
			}
			val = m
		}
		out = append(out, snapshot.Flag{Name: name, Value: val})
	}
	for _, f := range out {
		if err := checkFlag(f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mergeMapFlag merges the occurrences of a map-valued flag into one value, keys sorted.
func mergeMapFlag(name string, occurrences []string) (string, error) {
	m := map[string]string{}
	for _, occ := range occurrences {
		for _, kv := range strings.Split(occ, ",") {
			kv = strings.TrimSpace(kv)
			if kv == "" {
				continue
			}
			k, v, ok := strings.Cut(kv, "=")
			if !ok && name == FlagFeatureGates {
				return "", fmt.Errorf("--%s %q: %q is not NAME=true|false", name, occ, kv)
			}
			if !ok {
				v = "true" // a bare --runtime-config key means =true
			}
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, ","), nil
}

// checkFlag refuses the values kube-apiserver refuses at start-up.
func checkFlag(f snapshot.Flag) error {
	switch f.Name {
	case FlagFeatureGates:
		_, err := parseFeatureGates(f.Value)
		return err
	case FlagRuntimeConfig:
		_, err := ParseRuntimeConfig(f.Value)
		return err
	}
	return nil
}

func parseFeatureGates(s string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, kv := range strings.Split(s, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("--%s %q: %q is not true or false", FlagFeatureGates, kv, v)
		}
		out[strings.TrimSpace(k)] = b
	}
	return out, nil
}

// StatedProxy is what a server's stated flags make of its peer proxy on binary version v.
type StatedProxy struct {
	// Source is where the flags were read.
	Source string
	// Gate is the gate's state; GateStated says --feature-gates names it (else it is the
	// binary's default: no --feature-gates entry is a statement too).
	Gate, GateStated bool
	// PeerCAFile is --peer-ca-file ("" when not set).
	PeerCAFile string
	// RuntimeConfig is --runtime-config (the defaults when not set).
	RuntimeConfig RuntimeConfig
	// AdvertiseAddress and SecurePort are "" when not stated.
	AdvertiseAddress, SecurePort string
}

// Filter reports whether the proxy filter is installed: the gate on and --peer-ca-file set
// (docs/behaviour.md §2 step 0).
func (s StatedProxy) Filter() bool { return s.Gate && s.PeerCAFile != "" }

// StatedProxyOf reads st for binary version v. ok is false when nothing is stated (st nil).
func StatedProxyOf(st *snapshot.StatedFlags, v snapshot.Version) (sp StatedProxy, ok bool, err error) {
	if st == nil {
		return sp, false, nil
	}
	sp.Source = st.Source
	sp.Gate = GateDefault(v)
	if fg, set := st.Lookup(FlagFeatureGates); set {
		gates, err := parseFeatureGates(fg)
		if err != nil {
			return sp, false, fmt.Errorf("%s: %w", st.Source, err)
		}
		if g, named := gates[GateName]; named {
			sp.Gate, sp.GateStated = g, true
		}
	}
	sp.PeerCAFile, _ = st.Lookup(FlagPeerCAFile)
	if rc, set := st.Lookup(FlagRuntimeConfig); set {
		c, err := ParseRuntimeConfig(rc)
		if err != nil {
			return sp, false, fmt.Errorf("%s: %w", st.Source, err)
		}
		sp.RuntimeConfig = c
	}
	sp.AdvertiseAddress, _ = st.Lookup(FlagAdvertiseAddress)
	sp.SecurePort, _ = st.Lookup(FlagSecurePort)
	return sp, true, nil
}

// statedProxy is StatedProxyOf for srv's own version; ok is false when nothing usable is
// stated.
func statedProxy(srv *snapshot.Server) (StatedProxy, bool) {
	sp, ok, err := StatedProxyOf(srv.Stated, versionOf(srv))
	return sp, ok && err == nil
}

// Words says in words what the stated flags set up on version v.
func (s StatedProxy) Words(v snapshot.Version) string {
	gate := "off"
	if s.Gate {
		gate = "on"
	}
	if !s.GateStated {
		gate += fmt.Sprintf(" (no --%s entry: the %s default)", FlagFeatureGates, v.MinorString())
	}
	ca := "no --" + FlagPeerCAFile
	if s.PeerCAFile != "" {
		ca = "--" + FlagPeerCAFile + "=" + s.PeerCAFile
	}
	filter := "no proxy filter"
	if s.Filter() {
		filter = "the proxy filter installed"
	}
	rc := "no --" + FlagRuntimeConfig
	if !s.RuntimeConfig.IsDefault() {
		rc = "--" + FlagRuntimeConfig + "=" + s.RuntimeConfig.String()
	}
	return fmt.Sprintf("gate %s %s, %s, so %s; %s", GateName, gate, ca, filter, rc)
}

// firstPublishedAddressReadMinor is the first minor whose published peer address was read in
// the source (docs/behaviour.md §4.3: v1.34.4–v1.37.1).
const firstPublishedAddressReadMinor = 34

// PublishedPeerAddress is the address a server started with these flags publishes for its
// peers (identity lease annotation, endpoint key): --advertise-address:--secure-port, as the
// --peer-advertise-* flags never reach it (docs/behaviour.md §4.3). known is false when either
// flag is not stated, or the version predates the source read.
func (s StatedProxy) PublishedPeerAddress(v snapshot.Version) (addr string, known bool) {
	if s.AdvertiseAddress == "" || s.SecurePort == "" || v.Major != 1 || v.Minor < firstPublishedAddressReadMinor {
		return "", false
	}
	return net.JoinHostPort(s.AdvertiseAddress, s.SecurePort), true
}
