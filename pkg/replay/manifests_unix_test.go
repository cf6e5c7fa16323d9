//go:build unix

package replay

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadManifestsRefusesFIFO: a FIFO would block the read for ever: refused, given itself or
// found in a directory.
func TestReadManifestsRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, path := range []string{fifo, dir} {
		if _, err := ReadManifests(path, nil); err == nil || !strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), fifo) {
			t.Errorf("ReadManifests(%s) with a FIFO: %v, want a refusal naming %s", path, err, fifo)
		}
	}
}
