package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/pkg/profile"
)

// profileFlags is --profile, on every command that uses version profiles. Besides the
// embedded profiles and those files, the profile directory's are loaded (profileDir).
type profileFlags struct {
	files []string
}

func (p *profileFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringArrayVar(&p.files, "profile", nil, "load this version profile `FILE` too (what mvpctl profiles record writes; repeatable): it replaces the profiles of its minor version from the profile directory ($XDG_CONFIG_HOME/mvpctl/profiles, default ~/.config/mvpctl/profiles: every *.json, loaded by itself) and the embedded ones")
}

// use loads the profiles the command works with: the embedded ones, then the profile
// directory's, then --profile's. A profile that replaces another is said once on stderr; a
// bad file is an input error (exit 1) naming the file.
func (p *profileFlags) use(g *globalOptions) error {
	notes, err := profile.Use(profileSources(p.files))
	for _, n := range notes {
		g.warn(n)
	}
	return err
}

func profileSources(files []string) profile.Sources {
	dir, shown := profileDir()
	return profile.Sources{Files: files, Dir: dir, DirShown: shown}
}

// profileDir is the profile directory: $XDG_CONFIG_HOME/mvpctl/profiles, or, when that is
// unset or not absolute (the XDG Base Directory rule), ~/.config/mvpctl/profiles. shown is the
// directory as messages write it, with ~ for the home directory.
func profileDir() (dir, shown string) {
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
