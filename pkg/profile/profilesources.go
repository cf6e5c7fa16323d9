package profile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// This file loads the user's profiles: a version mvpctl does not embed (a release newer than
// the binary) is simulated from a profile file that `mvpctl profiles record` wrote.

// Sources are the user's profile files, loaded after the embedded profiles: the
// profile directory's, then those named one by one (--profile). A profile replaces every
// profile of its minor version from an earlier source: an explicit file wins over the
// directory, the directory over the embedded profiles.
type Sources struct {
	// Files are profile files named one by one (--profile), in order.
	Files []string
	// Dir is the profile directory: every *.json file in it. A directory that does not exist
	// holds none.
	Dir string
	// DirShown is Dir as messages write it (~/.config/mvpctl/profiles); Dir when empty.
	DirShown string
}

// profileLayer is a profile's source, in order of precedence.
type profileLayer int

const (
	layerEmbedded profileLayer = iota
	layerDir
	layerFile
)

func (l profileLayer) String() string {
	return [...]string{"embedded", "profile directory", "--profile"}[l]
}

// describe names a profile and where it comes from, for notes.
func (p Profile) describe() string {
	if p.layer == layerEmbedded {
		return fmt.Sprintf("the embedded %s", p.Version)
	}
	return fmt.Sprintf("%s from %s (%s)", p.Version, p.From, p.layer)
}

// profileSet is the profiles in use after Use.
type profileSet struct {
	// profiles are those in use; nil when the sources hold none: the embedded profiles are
	// then decoded when first needed, as without Use (a command that may need none,
	// explain, does not pay for them).
	profiles []Profile
	sources  Sources
}

var (
	activeMu sync.Mutex
	active   *profileSet // nil: the embedded profiles alone
)

func activeSet() *profileSet {
	activeMu.Lock()
	defer activeMu.Unlock()
	return active
}

// Use loads the embedded profiles and those of src, and makes them the profiles
// every simulation uses (All, Lookup) until the next call. It returns a note for
// each profile another replaced, saying which one is used. A file that cannot be read or is
// not a profile is an error naming the file; the embedded profiles alone are then in use.
func Use(src Sources) (notes []string, err error) {
	set, notes, err := loadProfileSet(src)
	activeMu.Lock()
	defer activeMu.Unlock()
	active = set
	if err != nil {
		active = &profileSet{sources: src}
	}
	return notes, err
}

func loadProfileSet(src Sources) (*profileSet, []string, error) {
	dirFiles, err := profileDirFiles(src)
	if err != nil {
		return nil, nil, err
	}
	if len(dirFiles) == 0 && len(src.Files) == 0 {
		return &profileSet{sources: src}, nil, nil
	}
	embedded, err := embeddedProfileList()
	if err != nil {
		return nil, nil, err
	}
	dir, err := loadProfileFiles(dirFiles, layerDir)
	if err != nil {
		return nil, nil, err
	}
	files, err := loadProfileFiles(src.Files, layerFile)
	if err != nil {
		return nil, nil, err
	}
	var out []Profile
	var notes []string
	for _, layer := range [][]Profile{embedded, dir, files} {
		newest := map[string]Profile{} // minor → the layer's newest profile of it
		for _, p := range layer {
			if q, ok := newest[p.Version.MinorString()]; !ok || q.Version.Less(p.Version) {
				newest[p.Version.MinorString()] = p
			}
		}
		kept := make([]Profile, 0, len(out)+len(layer))
		for _, q := range out {
			if p, replaced := newest[q.Version.MinorString()]; replaced {
				if filepath.Clean(p.From) == filepath.Clean(q.From) {
					continue // the directory's file, named again with --profile
				}
				notes = append(notes, fmt.Sprintf("profiles of %s: using %s, not %s", q.Version.MinorString(), p.describe(), q.describe()))
				continue
			}
			kept = append(kept, q)
		}
		out = append(kept, layer...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Version.Less(out[j].Version) })
	return &profileSet{profiles: out, sources: src}, notes, nil
}

// profileDirFiles lists the *.json files of the profile directory, by name.
func profileDirFiles(src Sources) ([]string, error) {
	if src.Dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(src.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("profile directory %s: %w", src.Dir, unwrapPath(err))
	}
	var files []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(src.Dir, e.Name())
		if err := snapshot.CheckRegular(path); err != nil {
			return nil, fmt.Errorf("profile %s: %w: the profile directory holds profile files only; remove it", path, err)
		}
		files = append(files, path)
	}
	return files, nil
}

// loadProfileFiles loads the profile files of one source. Two files of the same version in one
// source is an error: which one the user meant cannot be told.
func loadProfileFiles(paths []string, layer profileLayer) ([]Profile, error) {
	var out []Profile
	byVersion := map[string]string{}
	loaded := map[string]bool{}
	for _, path := range paths {
		if loaded[filepath.Clean(path)] {
			continue // one file named twice is no clash
		}
		loaded[filepath.Clean(path)] = true
		data, err := snapshot.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("profile %s: %w", path, err)
		}
		p, err := Decode(data)
		if err != nil {
			return nil, fmt.Errorf("profile %s: %w", path, err)
		}
		p.From, p.layer = path, layer
		if other, dup := byVersion[p.Version.String()]; dup {
			return nil, fmt.Errorf("profile %s: %s is also in %s (%s): keep one", path, p.Version, other, layer)
		}
		byVersion[p.Version.String()] = path
		out = append(out, p)
	}
	return out, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
