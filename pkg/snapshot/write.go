package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
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
	return marshalYAML(s)
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
// partial file, and RemoveTempFiles cleans up after an interrupted write. Only a regular file
// is replaced: an existing one keeps its mode and owner (a new one is 0644), a symbolic link
// is followed to the regular file it names (the link stays), and anything else — a device
// (/dev/stdout, /dev/null), a named pipe, a socket, a directory, a link to a missing file — is
// refused before anything is written (CheckWritable).
func WriteAtomic(path string, data []byte, pattern string) error {
	target, info, err := writeTarget(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), pattern)
	if err != nil {
		return unwrapPathError(err)
	}
	tempFiles.Store(tmp.Name(), true)
	defer tempFiles.Delete(tmp.Name())
	defer os.Remove(tmp.Name())
	if err := keepModeAndOwner(tmp, info); err != nil {
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
	if err := os.Rename(tmp.Name(), target); err != nil {
		return unwrapPathError(err)
	}
	return nil
}

// CheckWritable returns an error unless WriteAtomic may write path: it does not exist yet (its
// directory does), or it is a regular file, or a symbolic link to one. The error says what
// path is and what to do, without the path (the caller names it).
func CheckWritable(path string) error {
	_, _, err := writeTarget(path)
	return err
}

// writeTarget is the file WriteAtomic replaces — path, or the regular file a symbolic link at
// path names — and its FileInfo (nil when it does not exist yet).
func writeTarget(path string) (string, os.FileInfo, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(path); lerr == nil {
			return "", nil, errors.New("a symbolic link to a missing file: name the file itself")
		}
		return path, nil, nil
	case err != nil:
		return "", nil, unwrapPathError(err)
	case !info.Mode().IsRegular():
		return "", nil, fmt.Errorf("%v: mvpctl replaces only regular files (for standard output, use -f -)", CheckRegular(path))
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", nil, unwrapPathError(err)
	}
	return target, info, nil
}

// keepModeAndOwner gives the temporary file the mode and owner of the file it replaces (info;
// a new file is 0644: what mvpctl writes holds no credentials and is shared like kubectl
// output). An owner it cannot keep is refused rather than changed.
func keepModeAndOwner(tmp *os.File, info os.FileInfo) error {
	if info == nil {
		return tmp.Chmod(0o644)
	}
	if err := tmp.Chmod(info.Mode().Perm()); err != nil {
		return err
	}
	if err := keepOwner(tmp, info); err != nil {
		return err
	}
	// chown clears the set-user-ID and set-group-ID bits; the mode is set again after it.
	return tmp.Chmod(info.Mode().Perm())
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
