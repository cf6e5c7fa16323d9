package harness

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// PeerServerName is the TLS server name the peer proxy verifies peers' serving
// certificates against (it is fixed in kube-apiserver). Every serving certificate the
// harness issues carries it as a DNS SAN.
const PeerServerName = "kubernetes.default.svc"

// PKI is a throw-away set of certificate authorities and keys written as PEM files
// into one directory. Only the paths are exported: the harness passes them to
// kube-apiserver flags and kubeconfigs.
type PKI struct {
	Dir string

	ServerCA     string // serving-cert CA (also --peer-ca-file)
	ClientCA     string // --client-ca-file
	FrontProxyCA string // --requestheader-client-ca-file

	AdminCert, AdminKey           string // O=system:masters, signed by ClientCA
	ProxyClientCert, ProxyKey     string // CN=front-proxy-client, clientAuth, signed by FrontProxyCA
	ServiceAccountPub, ServiceKey string // RSA key pair for service-account tokens

	serverCA *ca
}

type ca struct {
	cert *x509.Certificate
	key  crypto.Signer
}

var serial atomic.Int64

func nextSerial() *big.Int {
	serial.CompareAndSwap(0, time.Now().UnixNano())
	return big.NewInt(serial.Add(1))
}

func newKey() (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}

func writePEM(path, typ string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600)
}

func writeKey(path string, key crypto.Signer) error {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	return writePEM(path, "PRIVATE KEY", der)
}

func newCA(dir, name string) (*ca, string, error) {
	key, err := newKey()
	if err != nil {
		return nil, "", err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          nextSerial(),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, "", err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(dir, name+".crt")
	if err := writePEM(path, "CERTIFICATE", der); err != nil {
		return nil, "", err
	}
	if err := writeKey(filepath.Join(dir, name+".key"), key); err != nil {
		return nil, "", err
	}
	return &ca{cert: cert, key: key}, path, nil
}

// issue signs a leaf certificate and writes base.crt / base.key into dir.
func (c *ca) issue(dir, base string, tmpl *x509.Certificate) (certPath, keyPath string, err error) {
	key, err := newKey()
	if err != nil {
		return "", "", err
	}
	now := time.Now()
	tmpl.SerialNumber = nextSerial()
	tmpl.NotBefore = now.Add(-time.Hour)
	tmpl.NotAfter = now.Add(10 * 24 * time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	tmpl.BasicConstraintsValid = true
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.cert, key.Public(), c.key)
	if err != nil {
		return "", "", err
	}
	certPath = filepath.Join(dir, base+".crt")
	keyPath = filepath.Join(dir, base+".key")
	if err := writePEM(certPath, "CERTIFICATE", der); err != nil {
		return "", "", err
	}
	if err := writeKey(keyPath, key); err != nil {
		return "", "", err
	}
	return certPath, keyPath, nil
}

// NewPKI creates every CA and shared key pair in dir.
func NewPKI(dir string) (*PKI, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	p := &PKI{Dir: dir}
	var err error
	if p.serverCA, p.ServerCA, err = newCA(dir, "server-ca"); err != nil {
		return nil, fmt.Errorf("server CA: %w", err)
	}
	clientCA, clientCAPath, err := newCA(dir, "client-ca")
	if err != nil {
		return nil, fmt.Errorf("client CA: %w", err)
	}
	p.ClientCA = clientCAPath
	fpCA, fpCAPath, err := newCA(dir, "front-proxy-ca")
	if err != nil {
		return nil, fmt.Errorf("front-proxy CA: %w", err)
	}
	p.FrontProxyCA = fpCAPath

	if p.AdminCert, p.AdminKey, err = clientCA.issue(dir, "admin", &x509.Certificate{
		Subject:     pkix.Name{CommonName: "e2e-admin", Organization: []string{"system:masters"}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}); err != nil {
		return nil, fmt.Errorf("admin cert: %w", err)
	}
	if p.ProxyClientCert, p.ProxyKey, err = fpCA.issue(dir, "front-proxy-client", &x509.Certificate{
		Subject:     pkix.Name{CommonName: "front-proxy-client"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}); err != nil {
		return nil, fmt.Errorf("front-proxy client cert: %w", err)
	}

	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("service-account key: %w", err)
	}
	p.ServiceKey = filepath.Join(dir, "sa.key")
	if err := writeKey(p.ServiceKey, saKey); err != nil {
		return nil, err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, err
	}
	p.ServiceAccountPub = filepath.Join(dir, "sa.pub")
	if err := writePEM(p.ServiceAccountPub, "PUBLIC KEY", pubDER); err != nil {
		return nil, err
	}
	return p, nil
}

// ServingCert issues a serving certificate for one apiserver (base name = server
// name) with SANs IP:127.0.0.1 and the kubernetes.default.svc family of names.
func (p *PKI) ServingCert(name string) (certPath, keyPath string, err error) {
	return p.serverCA.issue(p.Dir, "serving-"+name, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver-" + name},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames: []string{PeerServerName, "kubernetes", "kubernetes.default",
			"kubernetes.default.svc.cluster.local", "localhost", name},
	})
}

// ClientCert issues a client certificate (signed by the client CA, so kube-apiserver
// authenticates it as user CN with groups O) and returns the cert and key paths.
func (p *PKI) ClientCert(user string, groups ...string) (certPath, keyPath string, err error) {
	caCert, err := os.ReadFile(p.ClientCA)
	if err != nil {
		return "", "", err
	}
	caKeyPEM, err := os.ReadFile(filepath.Join(p.Dir, "client-ca.key"))
	if err != nil {
		return "", "", err
	}
	c, err := loadCA(caCert, caKeyPEM)
	if err != nil {
		return "", "", err
	}
	return c.issue(p.Dir, "client-"+user, &x509.Certificate{
		Subject:     pkix.Name{CommonName: user, Organization: groups},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
}

func loadCA(certPEM, keyPEM []byte) (*ca, error) {
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return nil, fmt.Errorf("bad CA PEM")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, err
	}
	k, err := x509.ParsePKCS8PrivateKey(kb.Bytes)
	if err != nil {
		return nil, err
	}
	signer, ok := k.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("CA key is not a signer")
	}
	return &ca{cert: cert, key: signer}, nil
}
