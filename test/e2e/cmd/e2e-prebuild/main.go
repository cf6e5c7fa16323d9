// Command e2e-prebuild builds (or finds in the cache) etcd, metrics-server, promtool,
// prometheus and every pinned kube-apiserver version, one after another, so that a later
// `go test` starts in seconds. `make e2e` runs it before the tests, outside their -timeout; CI can run it
// as a separate, cacheable step:
//
//	cd test/e2e && go run ./cmd/e2e-prebuild [-n] [-heartbeat 1m] [version ...]
//
// It prints a line when each build starts (or is found in the cache), a "still
// building" line every -heartbeat while a build runs, and a line when it ends, with
// its duration. With -n it only prints what would be built and where. With versions,
// only those kube-apiservers (no etcd, metrics-server, promtool or prometheus).
package main

import (
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

func main() {
	dryRun := flag.Bool("n", false, "print what would be built (and what is cached) and build nothing")
	heartbeat := flag.Duration("heartbeat", time.Minute, "while a build runs, print a line this often (0: never)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./cmd/e2e-prebuild [-n] [-heartbeat D] [version ...]\n\n"+
			"Builds etcd, metrics-server, promtool, prometheus and every pinned kube-apiserver\n(%v) into the "+
			"cache, one after another, or only the kube-apiserver versions given.\n\n", harness.KubeVersions)
		flag.PrintDefaults()
	}
	flag.Parse()
	log.SetFlags(log.Ltime)
	log.SetPrefix("e2e-prebuild: ")

	withHelpers, versions := true, harness.KubeVersions
	if flag.NArg() > 0 {
		withHelpers, versions = false, flag.Args()
	}
	log.Printf("cache: %s (override with %s)", harness.CacheDir(), harness.EnvCache)
	plan, err := harness.Plan(withHelpers, versions...)
	if err != nil {
		log.Fatal(err)
	}
	if *dryRun {
		todo := 0
		for i, p := range plan {
			state := "cached"
			if !p.Cached {
				state, todo = "would build from "+p.ModDir, todo+1
			}
			fmt.Printf("[%d/%d] %-22s %s\n        %s\n", i+1, len(plan), p.What, state, p.Path)
		}
		fmt.Printf("%d of %d to build\n", todo, len(plan))
		return
	}

	t0 := time.Now()
	built := 0
	for i, p := range plan {
		step := fmt.Sprintf("[%d/%d] %s", i+1, len(plan), p.What)
		if p.Cached {
			log.Printf("%s: cached at %s", step, p.Path)
		} else {
			log.Printf("%s: building from %s (a cold kube-apiserver build takes minutes) ...", step, p.ModDir)
		}
		t1 := time.Now()
		stop := tick(*heartbeat, func(d time.Duration) { log.Printf("%s: still building (%s)", step, d.Round(time.Second)) })
		b, err := p.Build()
		stop()
		if err != nil {
			log.Fatalf("%s: FAILED after %s: %v", step, time.Since(t1).Round(time.Second), err)
		}
		if !b.Cached {
			built++
			log.Printf("%s: built in %s: %s", step, b.Took.Round(time.Second), b.Path)
		} else if !p.Cached { // built by another process while we waited for its lock
			log.Printf("%s: built by another process, found after %s: %s", step, b.Took.Round(time.Second), b.Path)
		}
	}
	log.Printf("done in %s: %d built, %d cached", time.Since(t0).Round(time.Second), built, len(plan)-built)
}

// tick calls f with the elapsed time every d until stop is called; d <= 0 never calls it.
func tick(d time.Duration, f func(time.Duration)) (stop func()) {
	if d <= 0 {
		return func() {}
	}
	t0, done := time.Now(), make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				f(time.Since(t0))
			}
		}
	}()
	return func() { close(done); <-exited }
}
