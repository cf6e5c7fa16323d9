// Package process is the plumbing of the mvpctl process around its commands: the one way
// out (Exit), the signal handler, ending the child processes a kubeconfig's credential
// plugin leaves (children_linux.go), and the guard that cleans what others write to the
// process's stderr (stderrguard.go). docs/architecture.md says why each is built so.
package process

import (
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/mvpctl/mvpctl/internal/apiclient"
)

// The bounds of Exit once Supervise ran: a child gets childGrace to end on SIGTERM, then
// SIGKILL, then childKillWait to be gone; the last lines others wrote get stderrDrain to be
// read.
const (
	childGrace    = 100 * time.Millisecond
	childKillWait = 400 * time.Millisecond
	stderrDrain   = 250 * time.Millisecond
)

// MaxChildOutput bounds what a child process (a credential plugin) writes, checked every
// childOutputTick (a tenth of it once a process wrote MaxChildOutput/16): an ExecCredential
// is a few KiB. client-go's buffer of the plugin's stdout doubles at 16 MiB to 32 MiB; it
// doubles again only if 16 MiB more are read between two checks.
const (
	MaxChildOutput  = 16 << 20
	childOutputTick = 5 * time.Millisecond
)

// exit is what Exit does: before Supervise, run nothing but os.Exit.
var exit = os.Exit

// Exit is the one way out of the process, given its exit code (the command's, or a second
// signal's). After Supervise it ends every child process first — a credential plugin still
// running (hung, or interrupted by the signal), with whatever it started — so none outlives
// the command, then runs the cleanup Supervise was given and shows what others wrote to
// stderr; nothing it does waits on a goroutine client-go may still have stuck in a plugin.
func Exit(code int) { exit(code) }

// Supervise makes the process the reaper of its descendants and points os.Stderr at the
// guard that shows others' lines cleaned on errOut (mvpctl's own stderr); from then on Exit
// ends every child, runs cleanup and shows what is held before it exits. Called once, in
// main, before any child starts.
func Supervise(errOut io.Writer, cleanup func()) {
	adoptOrphans()
	go watchChildOutput(MaxChildOutput, childOutputTick, apiclient.PluginMayRun, apiclient.NotePluginStopped, nil)
	guard := guardStderr(errOut)
	var once sync.Once
	exit = func(code int) {
		once.Do(func() { // main and a second signal may both get here: the first one exits
			// Every fork holds syscall.ForkLock for writing (the syscall package's promise):
			// holding it for reading, no goroutine (client-go running a plugin again for
			// another request) starts a child that endChildren would not see.
			syscall.ForkLock.RLock()
			endChildren(childGrace, childKillWait)
			cleanup()
			guard.stop(stderrDrain)
			os.Exit(code)
		})
		select {} // the other waits for os.Exit
	}
}
