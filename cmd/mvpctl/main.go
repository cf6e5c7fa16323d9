// Command mvpctl makes kube-apiserver's Mixed Version Proxy visible and testable: it snapshots
// each apiserver's own discovery, predicts how every request is routed in a mixed-version
// control plane, and checks the prediction against live servers.
package main

import (
	"os"

	"github.com/mvpctl/mvpctl/internal/gcpolicy"
)

// firstCollectionAt is the heap size at which the garbage collector first runs: a run on a
// small input (the README's example snapshot allocates about 5 MB) never collects, a large one
// collects with Go's usual pacing from there on (internal/gcpolicy).
const firstCollectionAt = 32 << 20

// lastFirstCollectionAt bounds how far a snapshot's size moves the first collection
// (expectSnapshot): a 72 MB snapshot of 5 × 20,000 GVRs is decoded, routed and printed
// without one; a larger one collects from 256 MiB on.
const lastFirstCollectionAt = 256 << 20

func main() {
	gcpolicy.DeferFirstCollection(firstCollectionAt)
	streams := DefaultStreams() // mvpctl's own stderr, before anything else can write there
	stop := func() {}
	if !selfContained(os.Args[0], os.Args[1:]) {
		stop = guardStderr(streams.ErrOut)
	}
	code := Execute(os.Args[1:], streams)
	stop()
	os.Exit(code)
}
