package process

import (
	"io"
	"syscall"
	"testing"
	"time"
)

// TestHandleSignals: the first signal ends the context and is reported with its exit code,
// after cleanup ran; before it, nothing is reported.
func TestHandleSignals(t *testing.T) {
	cleaned := 0
	ctx, interrupted := HandleSignals(io.Discard, func() { cleaned++ })
	if _, ok := interrupted(); ok {
		t.Fatal("interrupted before any signal")
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the context did not end on SIGTERM")
	}
	if code, ok := interrupted(); !ok || code != ExitTerminated || cleaned != 1 {
		t.Errorf("interrupted() = %d, %v (cleanup ran %d times); want %d, true, 1", code, ok, cleaned, ExitTerminated)
	}
}

func TestSignalExitCode(t *testing.T) {
	if signalExitCode(syscall.SIGINT) != ExitInterrupted || signalExitCode(syscall.SIGTERM) != ExitTerminated {
		t.Error("wrong codes")
	}
}
