// Command mvpctl makes kube-apiserver's Mixed Version Proxy visible and testable: it snapshots
// each apiserver's own discovery, predicts how every request is routed in a mixed-version
// control plane, and checks the prediction against live servers.
package main

import "os"

func main() {
	streams := DefaultStreams() // mvpctl's own stderr, before anything else can write there
	stop := func() {}
	if !selfContained(os.Args[0], os.Args[1:]) {
		stop = guardStderr(streams.ErrOut)
	}
	code := Execute(os.Args[1:], streams)
	stop()
	os.Exit(code)
}
