//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWritesRefuseSpecialFiles: every file mvpctl writes (snapshot -f, preflight
// --write-baseline, profiles record -f) refuses a device, a FIFO or a directory with one line
// naming the path and what to do, before any server is read, and leaves it as it was; a
// regular 0600 baseline comes back 0600. The devices are copies made with mknod in a
// temporary directory.
func TestWritesRefuseSpecialFiles(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mknod needs root")
	}
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	if err := syscall.Mknod(full, syscall.S_IFCHR|0o666, 1<<8|7); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	const example = "../../examples/skew.yaml"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"snapshot", "--server", "https://127.0.0.1:1", "-f", full}, "error: -f " + full + ": a device, not a regular file: mvpctl replaces only regular files (for standard output, use -f -)\n"},
		{[]string{"snapshot", "--server", "https://127.0.0.1:1", "-f", fifo}, "error: -f " + fifo + ": a named pipe (FIFO), not a regular file"},
		{[]string{"snapshot", "--server", "https://127.0.0.1:1", "-f", dir}, "error: -f " + dir + ": a directory, not a regular file"},
		{[]string{"profiles", "record", "--kubeconfig", "/nonexistent", "-f", full}, "error: -f " + full + ": a device, not a regular file"},
		{[]string{"preflight", "--snapshot", example, "--to", "1.37", "--no-baseline", "--write-baseline", full}, "error: --write-baseline " + full + ": a device, not a regular file"},
		{[]string{"preflight", "--snapshot", example, "--to", "1.37", "--no-baseline", "--write-baseline", fifo}, "error: --write-baseline " + fifo + ": a named pipe (FIFO)"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			stdout, stderr, code := run(t, tt.args...)
			if code != ExitError || stdout != "" || !strings.HasPrefix(stderr, tt.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and one line %q", code, stdout, stderr, tt.want)
			}
			for p, mode := range map[string]os.FileMode{full: os.ModeDevice | os.ModeCharDevice, fifo: os.ModeNamedPipe, dir: os.ModeDir} {
				if info, err := os.Lstat(p); err != nil || info.Mode().Type() != mode {
					t.Fatalf("%s was replaced: %v %v", p, info.Mode(), err)
				}
			}
		})
	}
	baseline := filepath.Join(dir, "baseline")
	if err := os.WriteFile(baseline, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, "preflight", "--snapshot", example, "--to", "1.37", "--no-baseline", "--write-baseline", baseline); code != ExitOK {
		t.Fatalf("--write-baseline to a regular file: exit %d: %s", code, stderr)
	}
	if info, err := os.Stat(baseline); err != nil || info.Mode().Perm() != 0o600 || info.Size() == 0 {
		t.Errorf("the baseline came back %v (%v), want 0600 and written", info.Mode(), err)
	}
}
