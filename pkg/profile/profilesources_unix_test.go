//go:build unix

package profile

import (
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO in the profile directory is refused, never opened (opening one waits for a writer).
func TestProfileDirFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	_, err := useProfiles(t, Sources{Dir: dir})
	if want := "profile " + fifo + ": a named pipe (FIFO), not a regular file: the profile directory holds profile files only; remove it"; err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}
