// Command mvpctl makes kube-apiserver's Mixed Version Proxy visible and testable: it snapshots
// each apiserver's own discovery, predicts how every request is routed in a mixed-version
// control plane, and checks the prediction against live servers.
package main

import (
	"os"
)

func main() {
	os.Exit(Execute(os.Args[1:], DefaultStreams()))
}
