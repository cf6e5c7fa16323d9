package harness

import (
	"os"
	"path/filepath"
	"strconv"
)

// What a kube-apiserver of the control plane runs with: its spec and its command line.

// ServerSpec describes one kube-apiserver of a control plane.
type ServerSpec struct {
	// Name is the server's name in the harness and its hostname (inside its own UTS
	// namespace), so it determines the server's identity lease / server ID.
	Name string
	// Version is a pinned kube-apiserver version, e.g. V1_36.
	Version string
	// ExtraFlags are appended after the harness's flags (later flags win).
	ExtraFlags []string
	// GateOff turns the Mixed Version Proxy off: no --peer-* flags, and for versions
	// where the gate is on by default (1.36+),
	// --feature-gates=UnknownVersionInteroperabilityProxy=false.
	GateOff bool
	// NoPeerCA keeps the gate on (and --peer-advertise-*) but leaves out --peer-ca-file,
	// so the proxy filter and peer-aggregated discovery are not installed.
	NoPeerCA bool
	// WrongPeerCA sets --peer-ca-file to the front-proxy CA, which signed no serving
	// certificate (an easy mistake): the filter is installed, but the server's peer-discovery
	// fetches fail TLS verification, so it learns no peer.
	WrongPeerCA bool
	// UnreachableAdvertise publishes 127.0.0.2:<port> as the server's peer address, where
	// nothing listens (it binds 127.0.0.1): peers cannot fetch its discovery, so none learns
	// it. Observed on v1.36.3: --peer-advertise-ip/--peer-advertise-port do not change the
	// published address (the identity lease annotation and the endpoint lease carry
	// --advertise-address and the secure port), so --advertise-address is what is changed.
	UnreachableAdvertise bool
	// DefaultProxyConfig starts the binary with its own defaults for the Mixed Version Proxy,
	// as a plain installer does: no --feature-gates and no --peer-* flags (so no filter: there
	// is no --peer-ca-file). Used to record what a version does by default.
	DefaultProxyConfig bool
}

// Minor returns the minor version number of s.Version (36 for v1.36.3).
func (s ServerSpec) Minor() int {
	m := versionRE.FindStringSubmatch(s.Version)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// GateOn reports whether UnknownVersionInteroperabilityProxy is enabled on the server.
func (s ServerSpec) GateOn() bool {
	if s.DefaultProxyConfig {
		return s.Minor() >= 36 // beta and on by default from 1.36
	}
	return !s.GateOff
}

// MVP reports whether the proxy filter (and, 1.35+, peer-aggregated discovery) is
// installed: gate on and --peer-ca-file given.
func (s ServerSpec) MVP() bool { return !s.GateOff && !s.NoPeerCA && !s.DefaultProxyConfig }

func (s *Server) certDir() string { return filepath.Join(s.cp.Dir, "cert-dir", s.Name) }

// Args returns the kube-apiserver command line (without the binary) for s.
func (s *Server) Args() []string {
	cp, p := s.cp, s.cp.PKI
	cert, key := filepath.Join(p.Dir, "serving-"+s.Name+".crt"), filepath.Join(p.Dir, "serving-"+s.Name+".key")
	a := []string{
		"--etcd-servers=" + cp.EtcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(s.Port),
		"--cert-dir=" + s.certDir(),
		"--tls-cert-file=" + cert,
		"--tls-private-key-file=" + key,
		"--client-ca-file=" + p.ClientCA,
		"--service-account-key-file=" + p.ServiceAccountPub,
		"--service-account-signing-key-file=" + p.ServiceKey,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-cluster-ip-range=10.96.0.0/16",
		"--endpoint-reconciler-type=none",
		"--authorization-mode=RBAC",
		"--proxy-client-cert-file=" + p.ProxyClientCert,
		"--proxy-client-key-file=" + p.ProxyKey,
		"--requestheader-client-ca-file=" + p.FrontProxyCA,
		"--requestheader-allowed-names=",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--profiling=false",
		"--v=" + apiserverVerbosity(),
	}
	minor := s.Minor()
	switch {
	case s.DefaultProxyConfig:
	case s.GateOff:
		if minor >= 36 { // beta, on by default from 1.36
			a = append(a, "--feature-gates=UnknownVersionInteroperabilityProxy=false")
		}
	default:
		if minor < 36 {
			a = append(a, "--feature-gates=UnknownVersionInteroperabilityProxy=true")
		}
		a = append(a, "--peer-advertise-ip=127.0.0.1", "--peer-advertise-port="+strconv.Itoa(s.Port))
		if s.UnreachableAdvertise {
			a = append(a, "--advertise-address=127.0.0.2") // the later flag wins
		}
		switch {
		case s.WrongPeerCA:
			a = append(a, "--peer-ca-file="+p.FrontProxyCA)
		case !s.NoPeerCA:
			a = append(a, "--peer-ca-file="+p.ServerCA)
		}
	}
	return append(a, s.ExtraFlags...)
}

// apiserverVerbosity is kube-apiserver's --v: 2, or MVPCTL_E2E_APISERVER_V (0–9) when set;
// 3 logs every request answered and every watch started, which is what a slow stop's log
// needs to name what it waited for.
func apiserverVerbosity() string {
	if v := os.Getenv("MVPCTL_E2E_APISERVER_V"); len(v) == 1 && v[0] >= '0' && v[0] <= '9' {
		return v
	}
	return "2"
}
