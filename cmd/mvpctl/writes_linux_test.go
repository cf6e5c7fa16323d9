//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
	pt "github.com/mvpctl/mvpctl/test/fake/proxycluster"
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
	// -f - is stdout; a link to a regular 0600 file is followed, the link and the mode kept.
	c := pt.Start(t, &pt.Server{Name: "cp-a", Version: "v1.36.3", Core: dt.CoreGroup(), Groups: pt.Groups136(true)})
	kc := c.Kubeconfig(t)
	if stdout, stderr, code := run(t, "snapshot", "--kubeconfig", kc, "-f", "-"); code != ExitOK || !strings.HasPrefix(stdout, "apiVersion: mvpctl.io/") {
		t.Errorf("snapshot -f -: exit %d, stdout %.80q, stderr %q; want the snapshot on stdout", code, stdout, stderr)
	}
	if _, err := os.Lstat("-"); err == nil {
		t.Error("snapshot -f - wrote a file named -")
	}
	real := filepath.Join(dir, "real.yaml")
	if err := os.WriteFile(real, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "cluster.yaml")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, "snapshot", "--kubeconfig", kc, "-f", link); code != ExitOK {
		t.Fatalf("snapshot -f LINK: exit %d: %s", code, stderr)
	}
	if li, err := os.Lstat(link); err != nil || li.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", li.Mode(), err)
	}
	if info, err := os.Stat(real); err != nil || info.Mode().Perm() != 0o600 || info.Size() == 0 {
		t.Errorf("the link's file came back %v (%v), want 0600 and written", info.Mode(), err)
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

// writeCases are the rows of docs/faults.md where the file mvpctl is told to write is not a
// regular file, or is one with a mode of its own: the special files are made with mknod and
// mkfifo in a temporary directory, never on the real /dev.
func writeCases() []processCase {
	example, _ := filepath.Abs("../../examples/skew.yaml")
	var full, fifo, baseline string
	kept := func(path string, mode os.FileMode, want string) func(t *testing.T, r processResult) {
		return func(t *testing.T, r processResult) {
			if want != "" && (strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, want)) {
				t.Errorf("stderr %q: want one line with %q", r.stderr, want)
			}
			info, err := os.Lstat(path)
			if err != nil || info.Mode().Type() != mode.Type() || (mode.IsRegular() && info.Mode().Perm() != mode.Perm()) {
				t.Errorf("%s is now %v (%v), want %v", path, info.Mode(), err, mode)
			}
		}
	}
	return []processCase{
		{fault: "-f: a copy of /dev/full (mknod)", command: "snapshot -f full", exit: ExitError, within: time.Second,
			setup: func(t *testing.T, _ string) processRun {
				full = filepath.Join(t.TempDir(), "full")
				if err := syscall.Mknod(full, syscall.S_IFCHR|0o666, 1<<8|7); err != nil {
					t.Fatal(err)
				}
				return processRun{args: []string{"snapshot", "--server", "https://127.0.0.1:1", "-f", full}}
			},
			check: func(t *testing.T, r processResult) {
				kept(full, os.ModeDevice|os.ModeCharDevice, "a device, not a regular file: mvpctl replaces only regular files (for standard output, use -f -)")(t, r)
			}},
		{fault: "--write-baseline: a FIFO", command: "preflight --to 1.37 --write-baseline fifo", exit: ExitError, within: time.Second,
			setup: func(t *testing.T, _ string) processRun {
				fifo = filepath.Join(t.TempDir(), "fifo")
				if err := syscall.Mkfifo(fifo, 0o600); err != nil {
					t.Fatal(err)
				}
				return processRun{args: []string{"preflight", "--snapshot", example, "--to", "1.37", "--no-baseline", "--write-baseline", fifo}}
			},
			check: func(t *testing.T, r processResult) {
				kept(fifo, os.ModeNamedPipe, "a named pipe (FIFO), not a regular file")(t, r)
			}},
		{fault: "--write-baseline: a regular 0600 file", command: "preflight --to 1.37 --write-baseline FILE", exit: ExitOK, within: 3 * time.Second,
			setup: func(t *testing.T, _ string) processRun {
				baseline = filepath.Join(t.TempDir(), "baseline")
				if err := os.WriteFile(baseline, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				return processRun{args: []string{"preflight", "--snapshot", example, "--to", "1.37", "--no-baseline", "--write-baseline", baseline}}
			},
			check: func(t *testing.T, r processResult) { kept(baseline, 0o600, "")(t, r) }},
	}
}
