package main

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSignals: SIGINT and SIGTERM stop a command waiting on a hung apiserver at once, with
// 130 and 143, and leave neither the target file nor a temporary file behind.
func TestSignals(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mvpctl")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // accept and never answer
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	for _, tt := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, ExitInterrupted}, {syscall.SIGTERM, ExitTerminated}} {
		t.Run(tt.sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(bin, "snapshot", "--server", "https://"+ln.Addr().String(), "--insecure-skip-tls-verify", "--timeout", "60s", "-f", filepath.Join(dir, "snap.yaml"))
			cmd.Dir = dir
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(500 * time.Millisecond)
			start := time.Now()
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tt.code {
				t.Errorf("exit %v, want %d", err, tt.code)
			}
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("took %s to stop", took)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				t.Errorf("left behind: %s", e.Name())
			}
		})
	}
}
