// Command e2e-prebuild builds (or finds in the cache) etcd and every pinned
// kube-apiserver version, one after another, so that a later `go test` starts in
// seconds. CI can run it as a separate, cacheable step:
//
//	cd test/e2e && go run ./cmd/e2e-prebuild [version ...]
package main

import (
	"fmt"
	"log"
	"os"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

func main() {
	logf := func(format string, args ...any) { log.Printf(format, args...) }
	fmt.Fprintf(os.Stderr, "cache: %s (override with %s)\n", harness.CacheDir(), harness.EnvCache)
	if len(os.Args) == 1 {
		if err := harness.Prebuild(logf); err != nil {
			log.Fatal(err)
		}
		return
	}
	for _, v := range os.Args[1:] {
		t0 := time.Now()
		b, err := harness.KubeAPIServer(v)
		if err != nil {
			log.Fatal(err)
		}
		logf("kube-apiserver %s: %s (cached=%v, %s)", v, b.Path, b.Cached, time.Since(t0).Round(time.Millisecond))
	}
}
