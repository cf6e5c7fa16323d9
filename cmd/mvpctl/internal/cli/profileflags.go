package cli

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/pkg/profile"
)

// ProfileFlags is --profile, on every command that uses version profiles. Besides the
// embedded profiles and those files, the profile directory's are loaded (ProfileDir).
type ProfileFlags struct {
	Files []string
}

// AddFlags adds --profile.
func (p *ProfileFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringArrayVar(&p.Files, "profile", nil, "load this version profile `FILE` too (what mvpctl profiles record writes; repeatable): it replaces the profiles of its minor version from the profile directory ($XDG_CONFIG_HOME/mvpctl/profiles, default ~/.config/mvpctl/profiles: every *.json, loaded by itself) and the embedded ones")
}

// Use loads the profiles the command works with: the embedded ones, then the profile
// directory's, then --profile's. A profile that replaces another is said once, to warn; a
// bad file is an input error (exit 1) naming the file.
func (p *ProfileFlags) Use(warn func(string)) error {
	notes, err := profile.Use(ProfileSources(p.Files))
	for _, n := range notes {
		warn(n)
	}
	return err
}

// ProfileSources are the profiles to load: files (--profile) and the profile directory.
func ProfileSources(files []string) profile.Sources {
	dir, shown := ProfileDir()
	return profile.Sources{Files: files, Dir: dir, DirShown: shown}
}

// ProfileDir is the profile directory: $XDG_CONFIG_HOME/mvpctl/profiles, or, when that is
// unset or not absolute (the XDG Base Directory rule), ~/.config/mvpctl/profiles. shown is the
// directory as messages write it, with ~ for the home directory.
func ProfileDir() (dir, shown string) {
	home, _ := os.UserHomeDir()
	base := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(base) {
		if home == "" {
			return "", ""
		}
		base = filepath.Join(home, ".config")
	}
	dir = filepath.Join(base, "mvpctl", "profiles")
	shown = dir
	if rest, ok := strings.CutPrefix(dir, home+string(filepath.Separator)); home != "" && ok {
		shown = filepath.Join("~", rest)
	}
	return dir, shown
}
