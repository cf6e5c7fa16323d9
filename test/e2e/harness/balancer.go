package harness

import (
	"fmt"
	"io"
	"net"
	"path/filepath"
	"sync"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Balancer is a TCP round-robin load balancer on loopback, as in front of a real control
// plane: each accepted connection goes to the next backend in turn and is spliced to it byte
// for byte (TLS passes through: the client talks to the backend apiserver).
type Balancer struct {
	// URL is https://127.0.0.1:<port>.
	URL      string
	ln       net.Listener
	backends []string

	mu    sync.Mutex
	next  int
	conns map[string]int // backend address → connections sent to it
	wg    sync.WaitGroup
}

// StartBalancer listens on 127.0.0.1:0 and balances over backends (host:port); it is closed
// when the test ends.
func StartBalancer(t testing.TB, backends ...string) *Balancer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("balancer: %v", err)
	}
	b := &Balancer{URL: "https://" + ln.Addr().String(), ln: ln, backends: backends, conns: map[string]int{}}
	b.wg.Add(1)
	go b.serve()
	t.Cleanup(b.Close)
	return b
}

func (b *Balancer) serve() {
	defer b.wg.Done()
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.mu.Lock()
		backend := b.backends[b.next%len(b.backends)]
		b.next++
		b.conns[backend]++
		b.mu.Unlock()
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			splice(c, backend)
		}()
	}
}

// splice copies both ways until either side closes; then both are closed.
func splice(client net.Conn, backend string) {
	defer client.Close()
	server, err := net.Dial("tcp", backend)
	if err != nil {
		return // the client sees its connection closed, as behind a real balancer with a dead backend
	}
	defer server.Close()
	done := make(chan struct{}, 2)
	go func() { io.Copy(server, client); done <- struct{}{} }()
	go func() { io.Copy(client, server); done <- struct{}{} }()
	<-done
}

// Conns returns how many connections each backend got so far.
func (b *Balancer) Conns() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]int{}
	for k, v := range b.conns {
		out[k] = v
	}
	return out
}

// Close stops accepting; connections in flight end when their peers close them.
func (b *Balancer) Close() { b.ln.Close() }

// WriteKubeconfigFor writes an admin kubeconfig whose server is url (a balancer in front of
// the control plane: the serving certificates name 127.0.0.1) into the control plane's
// directory and returns its path.
func (cp *ControlPlane) WriteKubeconfigFor(url, name string) (string, error) {
	p := cp.PKI
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: url, CertificateAuthority: p.ServerCA}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificate: p.AdminCert, ClientKey: p.AdminKey}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: "admin"}
	cfg.CurrentContext = name
	path := filepath.Join(cp.Dir, name+".kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return "", fmt.Errorf("kubeconfig for %s: %w", url, err)
	}
	return path, nil
}
