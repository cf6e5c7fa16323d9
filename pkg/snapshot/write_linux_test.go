//go:build linux

package snapshot

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteAtomicTargets: WriteAtomic replaces a regular file (keeping its mode and owner,
// through a symbolic link too) and refuses, before writing anything, every other kind of
// file — copies of /dev/null and /dev/full made with mknod, a FIFO, a socket, a directory,
// a link to a device or to nothing — leaving it as it was and no temporary file behind.
func TestWriteAtomicTargets(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mknod and chown need root")
	}
	const data = "apiVersion: mvpctl.io/v1alpha2\n"
	tests := []struct {
		name   string
		make   func(t *testing.T, dir string) string // returns the path written to
		refuse string                                // the error's text; "" when written
		mode   os.FileMode                           // of the file written (through links)
		uid    uint32
	}{
		{"a new file", func(t *testing.T, dir string) string { return filepath.Join(dir, "new.yaml") }, "", 0o644, 0},
		{"a regular 0600 file", func(t *testing.T, dir string) string { return regular(t, dir, "snap.yaml", 0o600, 0) }, "", 0o600, 0},
		{"a regular file of another owner", func(t *testing.T, dir string) string { return regular(t, dir, "snap.yaml", 0o640, 4242) }, "", 0o640, 4242},
		{"a link to a regular 0600 file", func(t *testing.T, dir string) string {
			return link(t, dir, regular(t, dir, "real.yaml", 0o600, 0))
		}, "", 0o600, 0},
		{"a copy of /dev/full", func(t *testing.T, dir string) string { return device(t, dir, "full", 1, 7) },
			"a device, not a regular file: mvpctl replaces only regular files (for standard output, use -f -)", 0, 0},
		{"a copy of /dev/null", func(t *testing.T, dir string) string { return device(t, dir, "null", 1, 3) }, "a device, not a regular file", 0, 0},
		{"a link to a copy of /dev/null", func(t *testing.T, dir string) string { return link(t, dir, device(t, dir, "null", 1, 3)) }, "a device, not a regular file", 0, 0},
		{"a FIFO", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
			return p
		}, "a named pipe (FIFO), not a regular file", 0, 0},
		{"a socket", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "sock")
			l, err := net.Listen("unix", p)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			return p
		}, "a socket, not a regular file", 0, 0},
		{"a directory", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "d")
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		}, "a directory, not a regular file", 0, 0},
		{"a link to nothing", func(t *testing.T, dir string) string { return link(t, dir, filepath.Join(dir, "missing")) }, "a symbolic link to a missing file", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tt.make(t, dir)
			before, _ := os.Lstat(path)
			err := WriteAtomic(path, []byte(data), ".mvpctl-snapshot-*")
			if tt.refuse != "" {
				if err == nil || !strings.Contains(err.Error(), tt.refuse) || CheckWritable(path) == nil {
					t.Fatalf("WriteAtomic: %v, want an error with %q", err, tt.refuse)
				}
				if after, _ := os.Lstat(path); before == nil || after == nil || after.Mode() != before.Mode() {
					t.Errorf("the %s was replaced: %v ⇒ %v", tt.name, before, after)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				checkWritten(t, path, data, tt.mode, tt.uid)
				if before != nil && before.Mode()&os.ModeSymlink != 0 {
					if after, _ := os.Lstat(path); after.Mode()&os.ModeSymlink == 0 {
						t.Errorf("the link was replaced by a file")
					}
				}
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".mvpctl-") {
					t.Errorf("temporary file left: %s", e.Name())
				}
			}
		})
	}
}

func regular(t *testing.T, dir, name string, mode os.FileMode, uid int) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("old\n"), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // whatever the umask
		t.Fatal(err)
	}
	if err := os.Chown(p, uid, uid); err != nil {
		t.Fatal(err)
	}
	return p
}

func link(t *testing.T, dir, target string) string {
	t.Helper()
	p := filepath.Join(dir, "link")
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	return p
}

func device(t *testing.T, dir, name string, major, minor uint32) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, int(major<<8|minor)); err != nil {
		t.Fatal(err)
	}
	return p
}

func checkWritten(t *testing.T, path, data string, mode os.FileMode, uid uint32) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != data {
		t.Fatalf("read back %q, %v", got, err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode() != mode {
		t.Errorf("mode %v, want %v", info.Mode(), mode)
	}
	if st := info.Sys().(*syscall.Stat_t); st.Uid != uid || st.Gid != uid {
		t.Errorf("owner %d:%d, want %d:%d", st.Uid, st.Gid, uid, uid)
	}
}
