package e2e

import (
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

// failoverLB is what operators put in front of an HA control plane, reduced to its core: a
// TCP (TLS passthrough) load balancer on 127.0.0.1 that sends each new connection to the
// backend that last accepted one, and to the next one when that one refuses. A connection
// whose backend goes away is closed, as a real balancer does.
type failoverLB struct {
	ln       net.Listener
	backends []string // host:port
	mu       sync.Mutex
	cur      int
	switches []string // "time backend" each time another backend took over
}

func startFailoverLB(t *testing.T, backends []string) *failoverLB {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lb := &failoverLB{ln: ln, backends: backends}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go lb.serve(c)
		}
	}()
	return lb
}

func (lb *failoverLB) serve(c net.Conn) {
	defer c.Close()
	lb.mu.Lock()
	start := lb.cur
	lb.mu.Unlock()
	for i := range lb.backends {
		idx := (start + i) % len(lb.backends)
		b, err := net.DialTimeout("tcp", lb.backends[idx], 500*time.Millisecond)
		if err != nil {
			continue
		}
		lb.mu.Lock()
		if lb.cur != idx {
			lb.cur = idx
			lb.switches = append(lb.switches, time.Now().Format("15:04:05.000")+" "+lb.backends[idx])
		}
		lb.mu.Unlock()
		done := make(chan struct{}, 2)
		go func() { _, _ = io.Copy(b, c); done <- struct{}{} }()
		go func() { _, _ = io.Copy(c, b); done <- struct{}{} }()
		<-done // either side closed: close both
		b.Close()
		return
	}
}

// URL is the balancer's https URL.
func (lb *failoverLB) URL() string { return "https://" + lb.ln.Addr().String() }

// kubeconfigVia writes a copy of kubeconfig whose server is server instead.
func kubeconfigVia(t *testing.T, kubeconfig, server string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cfg.Clusters {
		c.Server = server
	}
	path := t.TempDir() + "/kubeconfig-lb"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// hostPort is a URL's host:port.
func hostPort(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || !strings.Contains(u.Host, ":") {
		t.Fatalf("URL %q: no host:port", raw)
	}
	return u.Host
}
