package snapshot

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"sigs.k8s.io/yaml"
)

// This file writes a snapshot: Marshal in the current format, WriteFile atomically.

// Marshal encodes the snapshot as YAML or, when asJSON, indented JSON, in the current format
// (APIVersion): lists that the recorded discovery documents give are left out (Decode derives
// them again).
func (s *Snapshot) Marshal(asJSON bool) ([]byte, error) {
	s = s.compact()
	if asJSON {
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return nil, err
		}
		return append(b, '\n'), nil
	}
	return yaml.Marshal(s)
}

// WriteFile writes the snapshot atomically: a temporary file in the same directory renamed
// over path, so a reader never sees a partial snapshot presented as whole.
func (s *Snapshot) WriteFile(path string, asJSON bool) error {
	data, err := s.Marshal(asJSON)
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", path, err)
	}
	if err := WriteAtomic(path, data, ".mvpctl-snapshot-*"); err != nil {
		return fmt.Errorf("snapshot %s: %w", path, err)
	}
	return nil
}

// WriteAtomic writes data to path through a temporary file (named by pattern, as
// os.CreateTemp takes it) in the same directory, renamed over path: a reader never sees a
// partial file, and RemoveTempFiles cleans up after an interrupted write. The file is 0644.
func WriteAtomic(path string, data []byte, pattern string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return unwrapPathError(err)
	}
	tempFiles.Store(tmp.Name(), true)
	defer tempFiles.Delete(tmp.Name())
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file 0600; what is written here holds no credentials and is
	// shared like kubectl output.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return unwrapPathError(err)
	}
	return nil
}

// tempFiles are the temporary files WriteFile is writing, for RemoveTempFiles.
var tempFiles sync.Map

// RemoveTempFiles removes the temporary files WriteFile has not finished with. A command
// interrupted by a signal calls it before exiting: the target file is never partial (it is
// renamed into place whole), and no .mvpctl-snapshot-* file is left beside it.
func RemoveTempFiles() {
	tempFiles.Range(func(name, _ any) bool {
		os.Remove(name.(string))
		tempFiles.Delete(name)
		return true
	})
}

// New returns an empty snapshot with apiVersion and kind set.
func New() *Snapshot { return &Snapshot{APIVersion: APIVersion, Kind: Kind} }
