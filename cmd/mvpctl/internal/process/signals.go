package process

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Exit codes after a signal, as shells report them (128 + the signal number).
const (
	ExitInterrupted = 130 // SIGINT
	ExitTerminated  = 143 // SIGTERM
)

// signalGrace is how long the command has, after the first signal, to stop by itself (its
// requests end with the context, probe prints what it measured); past it the process ends
// whatever the command is blocked on — a read of a silent stdin, a FIFO or a pipe, a long
// computation, a write to a stdout nobody reads — so that every signal ends the process
// within a second (signalGrace plus Exit's own bounds in the usual case).
const signalGrace = 400 * time.Millisecond

// HandleSignals makes the first SIGINT or SIGTERM end the returned context, so that every
// request stops and commands print what they have (probe) and clean up; a command still
// running signalGrace later is not waited for: the process says so on errOut and exits with
// the signal's code (Exit). A second signal exits at once. Either way cleanup runs and no
// temporary file and no child process is left behind. interrupted reports, after the
// command, the exit code the signal calls for (having run cleanup).
//
// signal.NotifyContext would replace the first half only: it says which signal came only as
// the text of its cause, and the second signal needs a channel of its own registered from
// the start anyway (docs/architecture.md).
func HandleSignals(errOut io.Writer, cleanup func()) (ctx context.Context, interrupted func() (int, bool)) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	var (
		mu       sync.Mutex
		first    os.Signal
		returned bool // the command returned: it says what it did, not the watchdog
	)
	go func() {
		s := <-sigs
		mu.Lock()
		first = s
		mu.Unlock()
		cancel()
		code := signalExitCode(s)
		select {
		case s2 := <-sigs:
			code = signalExitCode(s2)
		case <-time.After(signalGrace):
			mu.Lock()
			stillRunning := !returned
			mu.Unlock()
			if !stillRunning {
				return // the command is printing its last lines and will exit
			}
			say(errOut, fmt.Sprintf("error: interrupted by %s; stopped before the command finished\n", signalName(s)))
		}
		cleanup()
		Exit(code)
	}()
	return ctx, func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		returned = true
		if first == nil {
			return 0, false
		}
		cleanup()
		return signalExitCode(first), true
	}
}

// say writes line to w unless w blocks (a terminal stopped, a pipe nobody reads) for longer
// than a tenth of a second: the process is on its way out.
func say(w io.Writer, line string) {
	done := make(chan struct{})
	go func() { io.WriteString(w, line); close(done) }()
	select {
	case <-done:
	case <-time.After(100 * time.Millisecond):
	}
}

func signalName(s os.Signal) string {
	if s == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

func signalExitCode(s os.Signal) int {
	if s == syscall.SIGTERM {
		return ExitTerminated
	}
	return ExitInterrupted
}
