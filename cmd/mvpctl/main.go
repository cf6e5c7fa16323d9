// Command mvpctl makes kube-apiserver's Mixed Version Proxy visible and testable: it snapshots
// each apiserver's own discovery, predicts how every request is routed in a mixed-version
// control plane, and checks the prediction against live servers.
package main

import (
	"os"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/process"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func main() {
	streams := DefaultStreams() // mvpctl's own stderr, before anything else can write there
	if selfContained(os.Args[0], os.Args[1:]) {
		os.Exit(Execute(os.Args[1:], streams))
	}
	process.Supervise(streams.ErrOut, snapshot.RemoveTempFiles)
	process.Exit(Execute(os.Args[1:], streams))
}
