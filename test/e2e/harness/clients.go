package harness

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Clients of the control plane: the admin HTTP client, kubeconfigs, certificates for other users.

func (cp *ControlPlane) adminHTTPClient() (*http.Client, error) {
	p := cp.PKI
	caPEM, err := os.ReadFile(p.ServerCA)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	cert, err := tls.LoadX509KeyPair(p.AdminCert, p.AdminKey)
	if err != nil {
		return nil, err
	}
	tr := &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     30 * time.Second,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}, nil
}

func (cp *ControlPlane) writeKubeconfig(s *Server, path string) (string, error) {
	p := cp.PKI
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[s.Name] = &clientcmdapi.Cluster{Server: s.URL, CertificateAuthority: p.ServerCA}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificate: p.AdminCert, ClientKey: p.AdminKey}
	cfg.Contexts[s.Name] = &clientcmdapi.Context{Cluster: s.Name, AuthInfo: "admin"}
	cfg.CurrentContext = s.Name
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return "", err
	}
	return path, nil
}

// HTTPClientFor returns an HTTP client for any server of the control plane that
// authenticates with a fresh client certificate for user/groups (e.g. an unprivileged
// user to observe 403s).
func (cp *ControlPlane) HTTPClientFor(user string, groups ...string) (*http.Client, error) {
	certPath, keyPath, err := cp.PKI.ClientCert(user, groups...)
	if err != nil {
		return nil, err
	}
	c, err := cp.adminHTTPClient()
	if err != nil {
		return nil, err
	}
	cert, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		return nil, err
	}
	c.Transport.(*http.Transport).TLSClientConfig.Certificates = []tls.Certificate{cert}
	return c, nil
}
