// Command mvpctl makes kube-apiserver's Mixed Version Proxy visible and testable: it snapshots
// each apiserver's own discovery, predicts how every request is routed in a mixed-version
// control plane, and checks the prediction against live servers.
package main

import (
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func main() {
	streams := DefaultStreams() // mvpctl's own stderr, before anything else can write there
	if selfContained(os.Args[0], os.Args[1:]) {
		os.Exit(Execute(os.Args[1:], streams))
	}
	adoptOrphans()
	guard := guardStderr(streams.ErrOut)
	var once sync.Once
	exitProcess = func(code int) {
		once.Do(func() { // main and a second signal may both get here: the first one exits
			// Every fork holds syscall.ForkLock for writing (the syscall package's promise):
			// holding it for reading, no goroutine (client-go running a plugin again for
			// another request) starts a child that endChildren would not see.
			syscall.ForkLock.RLock()
			endChildren(childGrace, childKillWait)
			snapshot.RemoveTempFiles()
			guard.stop(stderrDrain)
			os.Exit(code)
		})
		select {} // the other waits for os.Exit
	}
	exitProcess(Execute(os.Args[1:], streams))
}

// exitProcess is the one way out of the process, given its exit code (from Execute, or a
// second signal's). main makes it end every child process first — a credential plugin still
// running (hung, or interrupted by the signal), with whatever it started — so none outlives
// the command, then remove temporary files and show what others wrote to stderr; nothing it
// does waits on a goroutine client-go may still have stuck in a plugin.
var exitProcess = func(code int) {
	snapshot.RemoveTempFiles()
	os.Exit(code)
}

// The bounds of exitProcess: a child gets childGrace to end on SIGTERM, then SIGKILL, then
// childKillWait to be gone; the last lines others wrote get stderrDrain to be read.
const (
	childGrace    = 100 * time.Millisecond
	childKillWait = 400 * time.Millisecond
	stderrDrain   = 250 * time.Millisecond
)
