package discover

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
)

// FoundByLB marks the servers of a snapshot sampled through a load balancer.
const FoundByLB = "lb"

// lbSample is one sample through the balancer: everything fetchServer reads, over one fresh
// TCP connection, so every answer comes from the one apiserver the balancer picked for it.
type lbSample struct {
	r *result
	// conns is how many TCP connections the sample opened: anything but 1 makes its answers
	// unattributable to one apiserver.
	conns int
	// failure says why the sample gives no complete observation ("" when it does).
	failure string
	// conn dialled the sample's connection (closed once the sample is taken) and any later one
	// through the sample's client (the cluster-wide lists), closed when the snapshot is done.
	conn *connTracker
}

// connTracker dials for one sample and remembers what it dialled. A transport built with a
// Dial of its own and a Proxy is not shared through client-go's transport cache (which keys
// on neither), so no other sample can reuse its connection.
type connTracker struct {
	timeout time.Duration
	mu      sync.Mutex
	conns   []net.Conn
}

func (c *connTracker) dial(ctx context.Context, network, address string) (net.Conn, error) {
	d := net.Dialer{Timeout: c.timeout}
	conn, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.conns = append(c.conns, conn)
	c.mu.Unlock()
	return conn, nil
}

func (c *connTracker) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.conns)
}

func (c *connTracker) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, conn := range c.conns {
		conn.Close()
	}
	c.conns = nil
}

// sampleConfig is cfg with a transport of the sample's own: its own dialer, and the proxy
// client-go would use anyway (set explicitly, which keeps the transport out of the cache).
func sampleConfig(cfg *rest.Config, tr *connTracker) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.Dial = tr.dial
	c.Proxy = utilnet.NewProxierWithNoProxyCIDR(http.ProxyFromEnvironment)
	return c
}

// takeSample reads the balancer once: /version, /readyz?verbose, the non-peer discovery
// (/api, /apis?profile=nopeer), the default /apis, /api's server addresses, as fetchServer
// reads any apiserver — on one connection.
func (d *discoverer) takeSample(ctx context.Context, cfg *rest.Config, base, kubeContext string, timeout time.Duration) *lbSample {
	tr := &connTracker{timeout: timeout}
	t := &target{foundBy: FoundByLB, base: base, cfg: sampleConfig(cfg, tr), context: kubeContext}
	s := &lbSample{r: fetchServer(ctx, t, timeout, &d.red), conn: tr}
	s.conns = tr.count()
	s.failure = sampleFailure(s)
	// Closed now, so that a thousand samples do not hold a thousand connections. The cluster-
	// wide lists read later through a sample's client dial again: they are the same on every
	// apiserver (one etcd), so whichever the balancer picks does.
	tr.close()
	return s
}

// sampleFailure says why a sample gives no complete observation: a failed request, evidence
// the class key needs left unread, or answers spread over several connections.
func sampleFailure(s *lbSample) string {
	r := s.r
	switch {
	case r.err != nil:
		return errMsg(r.err)
	case s.conns != 1:
		return fmt.Sprintf("the sample's requests went over %d connections (the balancer or the server closed one?): they may come from different apiservers", s.conns)
	case r.doc == nil:
		return "no discovery document read"
	case !r.readyz.read:
		return "readyz not read (" + r.readyz.err + "): the proxy filter, part of the server class, is unknown"
	case r.peerAggErr != "":
		return "default /apis not read (" + r.peerAggErr + ")"
	}
	return ""
}

// takeSamples takes n samples, at most Concurrency at a time, each bounded by timeout.
func (d *discoverer) takeSamples(ctx context.Context, cfg *rest.Config, base, kubeContext string, n int, timeout time.Duration) []*lbSample {
	out := make([]*lbSample, n)
	sem := make(chan struct{}, d.opts.concurrency())
	var wg sync.WaitGroup
	var done int
	var doneMu sync.Mutex
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i] = d.takeSample(ctx, cfg, base, kubeContext, timeout)
			doneMu.Lock()
			done++
			k := done
			doneMu.Unlock()
			if k%10 == 0 || k == n {
				d.progress("sampled %d/%d through %s", k, n, base)
			}
		}()
	}
	wg.Wait()
	return out
}

func closeSamples(samples []*lbSample) {
	for _, s := range samples {
		s.conn.close()
	}
}
