package discover

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// quietBalancer is a TCP balancer in front of one backend that can go quiet: from Quiet on,
// every connection it holds, and every one it accepts until Speak, is kept open and forwards
// nothing (a balancer that lost its backend without closing the client's connection). The
// connections it accepts after Speak forward again.
type quietBalancer struct {
	ln      net.Listener
	backend string
	quiet   atomic.Bool
	mu      sync.Mutex
	conns   []*quietConn
}

type quietConn struct{ dead atomic.Bool }

func startQuietBalancer(t *testing.T, backend string) *quietBalancer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &quietBalancer{ln: ln, backend: backend}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go b.serve(t, c)
		}
	}()
	return b
}

func (b *quietBalancer) serve(t *testing.T, c net.Conn) {
	qc := &quietConn{}
	qc.dead.Store(b.quiet.Load())
	b.mu.Lock()
	b.conns = append(b.conns, qc)
	b.mu.Unlock()
	s, err := net.Dial("tcp", b.backend)
	if err != nil {
		c.Close()
		return
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	pipe := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 && !qc.dead.Load() {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				if !qc.dead.Load() {
					dst.Close()
				}
				return
			}
		}
	}
	go pipe(s, c)
	go pipe(c, s)
}

// Quiet makes every connection held, and every new one, forward nothing from now on.
func (b *quietBalancer) Quiet() {
	b.quiet.Store(true)
	b.mu.Lock()
	for _, c := range b.conns {
		c.dead.Store(true)
	}
	b.mu.Unlock()
}

// Speak makes the connections accepted from now on forward again.
func (b *quietBalancer) Speak() { b.quiet.Store(false) }

// TestLeaseWatchThroughQuietBalancer: the lease watch goes through a balancer (HTTP/2 over
// TLS, as to a kube-apiserver) that goes quiet in the middle of a watch. The watch says so
// (OnFailure) once the request outlives the server's end of it by quietSlack, and once the
// balancer forwards again on new connections it lists the leases again and recovers at once,
// not on the quiet connection that HTTP/2 would otherwise keep using until its health check
// gives up (measured without: the failure said after 11.7s, no recovery within 20s).
func TestLeaseWatchThroughQuietBalancer(t *testing.T) {
	var holder atomic.Value
	holder.Store("a_1")
	var watches atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		q := r.URL.Query()
		if q.Get("watch") != "true" {
			fmt.Fprintf(w, `{"kind":"LeaseList","apiVersion":"coordination.k8s.io/v1","metadata":{"resourceVersion":"10"},"items":[%s]}`, leaseJSON("apiserver-a", holder.Load().(string), "10"))
			return
		}
		watches.Add(1)
		// A watch with no change: the server ends it after timeoutSeconds, as kube-apiserver.
		secs, _ := strconv.Atoi(q.Get("timeoutSeconds"))
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(time.Duration(secs) * time.Second):
		}
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	lb := startQuietBalancer(t, srv.Listener.Addr().String())
	cfg := &rest.Config{Host: "https://" + lb.ln.Addr().String(), TLSClientConfig: rest.TLSClientConfig{Insecure: true}}

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var (
		mu        sync.Mutex
		sets      []string
		failedAt  time.Time
		failures  []string
		recovered time.Time
	)
	w := &LeaseWatch{
		Config: cfg,
		OnLeases: func(set []IdentityLease) {
			mu.Lock()
			defer mu.Unlock()
			var parts []string
			for _, l := range set {
				parts = append(parts, l.Name+"="+l.Holder)
			}
			sets = append(sets, strings.Join(parts, ","))
		},
		OnFailure: func(err error, _ time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			if failedAt.IsZero() {
				failedAt = time.Now()
			}
			failures = append(failures, err.Error())
		},
		OnRecovered: func() {
			mu.Lock()
			defer mu.Unlock()
			if recovered.IsZero() {
				recovered = time.Now()
			}
		},
		WatchTimeout: time.Second,
		MinBackoff:   100 * time.Millisecond, MaxBackoff: time.Second,
	}
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	state := func() (string, time.Time, time.Time) {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(sets, " "), failedAt, recovered
	}
	waitFor := func(what string, within time.Duration, ok func() bool) time.Duration {
		t.Helper()
		start := time.Now()
		for !ok() {
			if time.Since(start) > within {
				s, _, _ := state()
				mu.Lock()
				t.Fatalf("%s: not within %s; sets %q, failures %q", what, within, s, failures)
				mu.Unlock()
			}
			time.Sleep(20 * time.Millisecond)
		}
		return time.Since(start)
	}
	waitFor("the first watch request", 10*time.Second, func() bool { return watches.Load() > 0 })
	time.Sleep(300 * time.Millisecond) // in the middle of a watch request
	lb.Quiet()
	took := waitFor("the lease watch saying it broke", 9*time.Second, func() bool { _, f, _ := state(); return !f.IsZero() })
	t.Logf("quiet: failure said after %s", took.Round(time.Millisecond))
	holder.Store("a_2") // a new process of a, while the balancer was quiet
	lb.Speak()
	took = waitFor("the lease watch recovering", 10*time.Second, func() bool {
		s, _, r := state()
		return !r.IsZero() && strings.HasSuffix(s, "apiserver-a=a_2")
	})
	t.Logf("forwarding again: the new holder listed and the watch recovered after %s", took.Round(time.Millisecond))
	mu.Lock()
	t.Logf("failures: %q", failures)
	mu.Unlock()
}
