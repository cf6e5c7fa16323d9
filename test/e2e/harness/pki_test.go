package harness

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestPKI(t *testing.T) {
	p, err := NewPKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	certPath, keyPath, err := p.ServingCert("kas-a")
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(pair.Certificate[0])
	roots := x509.NewCertPool()
	caPEM, _ := os.ReadFile(p.ServerCA)
	roots.AppendCertsFromPEM(caPEM)
	// The peer proxy verifies with this server name; clients use the IP.
	for _, name := range []string{PeerServerName, "127.0.0.1", "localhost"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: name}); err != nil {
			t.Errorf("serving cert does not verify for %s: %v", name, err)
		}
	}
	check := func(cert, caFile string, wantOrg string) {
		t.Helper()
		b, _ := os.ReadFile(cert)
		pool := x509.NewCertPool()
		ca, _ := os.ReadFile(caFile)
		pool.AppendCertsFromPEM(ca)
		kp, err := tls.X509KeyPair(b, mustRead(t, strings.TrimSuffix(cert, ".crt")+".key"))
		if err != nil {
			t.Fatal(err)
		}
		c, _ := x509.ParseCertificate(kp.Certificate[0])
		if _, err := c.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
			t.Errorf("%s: %v", cert, err)
		}
		if wantOrg != "" && !slices.Contains(c.Subject.Organization, wantOrg) {
			t.Errorf("%s: O=%v, want %s", cert, c.Subject.Organization, wantOrg)
		}
	}
	check(p.AdminCert, p.ClientCA, "system:masters")
	check(p.ProxyClientCert, p.FrontProxyCA, "")
	c, _, err := p.ClientCert("someone", "g1")
	if err != nil {
		t.Fatal(err)
	}
	check(c, p.ClientCA, "g1")
}

func mustRead(t *testing.T, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestArgs(t *testing.T) {
	cp := &ControlPlane{Dir: "/x", EtcdURL: "http://127.0.0.1:1", PKI: &PKI{Dir: "/x/pki", ServerCA: "/x/pki/server-ca.crt", FrontProxyCA: "/x/pki/front-proxy-ca.crt"}}
	has := func(args []string, prefix string) bool {
		return slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, prefix) })
	}
	for _, tc := range []struct {
		spec                    ServerSpec
		gate, peerCA, advertise string // "" = absent, else the expected flag
	}{
		{ServerSpec{Name: "a", Version: V1_35}, "--feature-gates=UnknownVersionInteroperabilityProxy=true", "--peer-ca-file=", "--peer-advertise-ip="},
		{ServerSpec{Name: "a", Version: V1_36}, "", "--peer-ca-file=", "--peer-advertise-ip="},
		{ServerSpec{Name: "a", Version: V1_37, NoPeerCA: true}, "", "", "--peer-advertise-ip="},
		{ServerSpec{Name: "a", Version: V1_35, GateOff: true}, "", "", ""},
		{ServerSpec{Name: "a", Version: V1_37, GateOff: true}, "--feature-gates=UnknownVersionInteroperabilityProxy=false", "", ""},
		{ServerSpec{Name: "a", Version: V1_36, WrongPeerCA: true}, "", "--peer-ca-file=/x/pki/front-proxy-ca.crt", "--peer-advertise-ip="},
		{ServerSpec{Name: "a", Version: V1_36, UnreachableAdvertise: true}, "", "--peer-ca-file=/x/pki/server-ca.crt", "--advertise-address=127.0.0.2"},
	} {
		s := &Server{ServerSpec: tc.spec, Port: 6443, cp: cp}
		args := s.Args()
		if got := has(args, "--feature-gates="); got != (tc.gate != "") || (tc.gate != "" && !slices.Contains(args, tc.gate)) {
			t.Errorf("%+v: feature gate flag wrong: %v", tc.spec, args)
		}
		if has(args, "--peer-ca-file=") != (tc.peerCA != "") || (strings.Count(tc.peerCA, "/") > 0 && !slices.Contains(args, tc.peerCA)) {
			t.Errorf("%+v: --peer-ca-file wrong: %v", tc.spec, args)
		}
		if strings.Contains(tc.advertise, "127.0.0.2") && slices.Index(args, tc.advertise) < slices.Index(args, "--advertise-address=127.0.0.1") {
			t.Errorf("%+v: want %s: %v", tc.spec, tc.advertise, args)
		}
		if has(args, "--peer-advertise-ip=") != (tc.advertise != "") || has(args, "--peer-advertise-port=") != (tc.advertise != "") {
			t.Errorf("%+v: --peer-advertise-* presence wrong", tc.spec)
		}
		if tc.spec.GateOff && has(args, "--peer-") {
			t.Errorf("%+v: gate-off server got a --peer-* flag", tc.spec)
		}
		for _, want := range []string{"--endpoint-reconciler-type=none", "--bind-address=127.0.0.1", "--secure-port=6443", "--etcd-servers=http://127.0.0.1:1"} {
			if !slices.Contains(args, want) {
				t.Errorf("%+v: missing %s", tc.spec, want)
			}
		}
	}
}
