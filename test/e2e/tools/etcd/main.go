// Command etcd is a minimal single-member etcd for the mvpctl e2e harness. It wraps
// go.etcd.io/etcd/server/v3/embed and listens only where the harness tells it to.
//
//	etcd -data-dir DIR -listen-client http://127.0.0.1:P1 -listen-peer http://127.0.0.1:P2
package main

import (
	"flag"
	"log"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

func mustURL(s string) url.URL {
	u, err := url.Parse(s)
	if err != nil {
		log.Fatalf("etcd: bad URL %q: %v", s, err)
	}
	return *u
}

func main() {
	dataDir := flag.String("data-dir", "", "data directory (required)")
	client := flag.String("listen-client", "http://127.0.0.1:2379", "client URL")
	peer := flag.String("listen-peer", "http://127.0.0.1:2380", "peer URL")
	name := flag.String("name", "e2e", "member name")
	logLevel := flag.String("log-level", "warn", "log level")
	flag.Parse()
	if *dataDir == "" {
		log.Fatal("etcd: -data-dir is required")
	}

	cfg := embed.NewConfig()
	cfg.Name = *name
	cfg.Dir = *dataDir
	cu, pu := mustURL(*client), mustURL(*peer)
	cfg.ListenClientUrls = []url.URL{cu}
	cfg.AdvertiseClientUrls = []url.URL{cu}
	cfg.ListenPeerUrls = []url.URL{pu}
	cfg.AdvertisePeerUrls = []url.URL{pu}
	cfg.InitialCluster = *name + "=" + pu.String()
	cfg.LogLevel = *logLevel
	cfg.UnsafeNoFsync = true // throw-away test data: speed over durability
	// embed.NewConfig leaves this 0 (etcd's flag parsing sets it), which logs a
	// "request stats" warning for every request.
	cfg.WarningUnaryRequestDuration = embed.DefaultWarningUnaryRequestDuration

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		log.Fatalf("etcd: start: %v", err)
	}
	defer e.Close()
	select {
	case <-e.Server.ReadyNotify():
		log.Printf("etcd: ready, serving clients on %s", cu.String())
	case <-time.After(60 * time.Second):
		e.Server.Stop()
		log.Fatal("etcd: not ready after 60s")
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case err := <-e.Err():
		log.Fatalf("etcd: %v", err)
	case s := <-sig:
		log.Printf("etcd: %v, stopping", s)
	}
}
