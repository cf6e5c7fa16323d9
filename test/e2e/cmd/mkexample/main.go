// Command mkexample records the example snapshot shown in the README from real apiservers: a
// v1.37.1 server and a v1.36.3 server with batch/v1 turned off, on one etcd, snapshotted by
// the mvpctl binary the way a user would.
//
//	cd test/e2e && go run ./cmd/mkexample -mvpctl ../../bin/mvpctl [-out ../../examples/skew.yaml]
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/exec"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

func main() {
	bin := flag.String("mvpctl", "../../bin/mvpctl", "the mvpctl binary (make build)")
	out := flag.String("out", "../../examples/skew.yaml", "where to write the snapshot")
	flag.Parse()
	cp, err := harness.NewControlPlane(harness.Config{Logf: log.Printf, Servers: []harness.ServerSpec{
		{Name: "kas-a", Version: harness.V1_37},
		{Name: "kas-b", Version: harness.V1_36, ExtraFlags: []string{"--runtime-config=api/all=true,batch/v1=false"}},
	}})
	if cp != nil {
		defer cp.Close()
	}
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := cp.WaitPeers(ctx); err != nil {
		log.Fatal(err)
	}
	cmd := exec.Command(*bin, "snapshot", "--kubeconfig", cp.Kubeconfig, "-f", *out)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatalf("mvpctl snapshot: %v", err)
	}
	log.Printf("wrote %s", *out)
}
