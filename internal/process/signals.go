package process

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Exit codes after a signal, as shells report them (128 + the signal number).
const (
	ExitInterrupted = 130 // SIGINT
	ExitTerminated  = 143 // SIGTERM
)

// HandleSignals makes the first SIGINT or SIGTERM end the returned context, so that every
// request stops and commands print what they have (probe) and clean up; a second signal
// runs cleanup and exits at once (Exit). Either way no temporary file and no child process
// is left behind. interrupted reports, after the command, the exit code the signal calls
// for (having run cleanup).
//
// signal.NotifyContext would replace the first half only: it says which signal came only as
// the text of its cause, and the second signal needs a channel of its own registered from
// the start anyway (docs/architecture.md).
func HandleSignals(cleanup func()) (ctx context.Context, interrupted func() (int, bool)) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	var (
		mu    sync.Mutex
		first os.Signal
	)
	go func() {
		s := <-sigs
		mu.Lock()
		first = s
		mu.Unlock()
		cancel()
		code := signalExitCode(<-sigs)
		cleanup()
		Exit(code)
	}()
	return ctx, func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			return 0, false
		}
		cleanup()
		return signalExitCode(first), true
	}
}

func signalExitCode(s os.Signal) int {
	if s == syscall.SIGTERM {
		return ExitTerminated
	}
	return ExitInterrupted
}
