package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/profilerecord"
)

// A provisional profile is the profile of the minor after the newest recorded one, derived
// from that profile and the minor's published prerelease modules (docs/profiles.md): made
// with -provisional, re-derived from the committed facts by every run, and removed as soon
// as a profile of its minor is recorded.

// factsDir is where the facts read from the modules are kept, beside the profiles (the
// embedded profiles are profiles/*.json only).
func factsDir(out string) string { return filepath.Join(out, "provisional") }

type profileFile struct {
	path string
	p    profile.Profile
}

// readProfiles decodes every profile file of dir.
func readProfiles(dir string) ([]profileFile, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []profileFile
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		p, err := profile.Decode(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, profileFile{f, p})
	}
	return out, nil
}

// newestRecorded is the newest profile of dir that was recorded, not derived.
func newestRecorded(ps []profileFile) (profileFile, error) {
	var best *profileFile
	for i := range ps {
		if ps[i].p.Provisional == nil && (best == nil || best.p.Version.Less(ps[i].p.Version)) {
			best = &ps[i]
		}
	}
	if best == nil {
		return profileFile{}, errors.New("no recorded profile to derive from: run make profiles first")
	}
	return *best, nil
}

// makeProvisional reads the modules of prerelease (v0.38.0-alpha.2) and of the newest recorded
// profile's release with `go mod download` under toolchain, writes their facts, and derives.
func makeProvisional(prerelease, toolchain, out string) error {
	ps, err := readProfiles(out)
	if err != nil {
		return err
	}
	base, err := newestRecorded(ps)
	if err != nil {
		return err
	}
	if prerelease, err = resolvePrerelease(prerelease, toolchain, base.p.Version.Minor+1, out); err != nil {
		return err
	}
	release, baseModules, err := profilerecord.ModuleVersions(prerelease, base.p.Version.String())
	if err != nil {
		return err
	}
	mods, err := download(toolchain, "k8s.io/api@"+prerelease, "k8s.io/apiserver@"+prerelease, "k8s.io/api@"+baseModules, "k8s.io/apiserver@"+baseModules)
	if err != nil {
		return err
	}
	src := profilerecord.UpstreamSources{API: mods[0], APIServer: mods[1], BaseAPI: mods[2], BaseAPIServer: mods[3]}
	if src.Kubernetes, err = kubernetesSource(fetchModules, toolchain, kubernetesVersion(prerelease)); err != nil {
		return err
	}
	facts, err := profilerecord.ExtractUpstream(release, src)
	if err != nil {
		return err
	}
	data, err := facts.Marshal()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(factsDir(out), 0o755); err != nil {
		return err
	}
	path := filepath.Join(factsDir(out), "v"+release+".json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	log.Printf("facts of %s from %s and %s written to %s", release, prerelease, baseModules, path)
	return deriveAll(out)
}

// resolvePrerelease is the prerelease to read: as named; the newest the proxy lists of the
// minor for "latest"; the one the committed facts of the minor were read from for "committed".
func resolvePrerelease(named, toolchain string, minor int, out string) (string, error) {
	switch named {
	case "latest":
		cmd := exec.Command("go", "list", "-m", "-versions", "k8s.io/api")
		cmd.Dir = os.TempDir()
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+toolchain, "GOFLAGS=-mod=mod")
		b, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("go list -m -versions k8s.io/api: %w", err)
		}
		v, err := newestPrerelease(strings.Fields(string(b)), minor)
		if err == nil {
			log.Printf("the newest prerelease of 1.%d the module proxy lists: %s", minor, v)
		}
		return v, err
	case "committed":
		facts, err := readFactsFile(filepath.Join(factsDir(out), fmt.Sprintf("v1.%d.json", minor)))
		if err != nil {
			return "", err
		}
		return facts.Modules[0].Version, nil
	}
	return named, nil
}

// kubernetesSource downloads k8s.io/kubernetes of the prerelease when the proxy serves it
// (zero Module when not), and says in one line whether a kube-apiserver of it can be built.
func kubernetesSource(fetch fetcher, toolchain, kubeVersion string) (profilerecord.Module, error) {
	got, missing, err := fetch(toolchain, "k8s.io/kubernetes@"+kubeVersion)
	if err != nil {
		return profilerecord.Module{}, err
	}
	if len(missing) > 0 {
		log.Printf("k8s.io/kubernetes@%s is not published: what kube-apiserver registers is assumed as in the base profile", kubeVersion)
		return profilerecord.Module{}, nil
	}
	missing, err = unbuildable(fetch, toolchain, kubeVersion)
	if err != nil {
		return profilerecord.Module{}, err
	}
	if len(missing) > 0 {
		log.Printf("%s: the profile is derived from its modules", missingLine(kubeVersion, missing))
	} else {
		log.Printf("every module kube-apiserver %s is built from is served: make profiles can record it", kubeVersion)
	}
	return got[0], nil
}

// download fetches modules into the module cache without making them anyone's dependency,
// with the Go toolchain they need (the modules of a prerelease may need a newer Go than
// mvpctl's), and returns what `go mod download -json` says of each, in order.
func download(toolchain string, modules ...string) ([]profilerecord.Module, error) {
	out, missing, err := fetchModules(toolchain, modules...)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("the module proxy does not serve %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// fetchModules is the fetcher of the module proxy: `go mod download -json` in an empty
// directory, outside any module (nothing is added to a go.mod).
func fetchModules(toolchain string, modules ...string) ([]profilerecord.Module, []string, error) {
	tmp, err := os.MkdirTemp("", "mkprofiles-download-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("go", append([]string{"mod", "download", "-json"}, modules...)...)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+toolchain, "GOFLAGS=-mod=mod")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	dec := json.NewDecoder(&stdout)
	var out []profilerecord.Module
	var missing []string
	for {
		var m struct {
			Path, Version, Sum, Dir, Info, Error string
		}
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("go mod download -json: %w (%s)", err, strings.TrimSpace(stderr.String()))
		}
		if m.Error != "" {
			missing = append(missing, m.Path+"@"+m.Version)
			continue
		}
		info, err := os.ReadFile(m.Info)
		if err != nil {
			return nil, nil, err
		}
		var i struct{ Time string }
		if err := json.Unmarshal(info, &i); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", m.Info, err)
		}
		out = append(out, profilerecord.Module{Path: m.Path, Version: m.Version, Sum: m.Sum, Time: i.Time, Dir: m.Dir})
	}
	if len(out)+len(missing) != len(modules) {
		return nil, nil, fmt.Errorf("go mod download %s: %v (%s)", strings.Join(modules, " "), runErr, strings.TrimSpace(stderr.String()))
	}
	return out, missing, nil
}

// deriveAll derives the provisional profile of every facts file whose minor has no recorded
// profile, and removes the provisional profiles (and facts) of minors that have one: a
// recorded profile replaces a derived one.
func deriveAll(out string) error {
	ps, err := readProfiles(out)
	if err != nil {
		return err
	}
	recorded := map[string]bool{}
	for _, pf := range ps {
		if pf.p.Provisional == nil {
			recorded[pf.p.Version.MinorString()] = true
		}
	}
	for _, pf := range ps {
		if pf.p.Provisional != nil {
			if err := os.Remove(pf.path); err != nil {
				return err
			}
		}
	}
	factFiles, err := filepath.Glob(filepath.Join(factsDir(out), "*.json"))
	if err != nil {
		return err
	}
	for _, f := range factFiles {
		facts, err := readFactsFile(f)
		if err != nil {
			return err
		}
		if recorded[facts.Release] {
			log.Printf("%s is recorded: its provisional profile and %s are removed", facts.Release, f)
			if err := os.Remove(f); err != nil {
				return err
			}
			continue
		}
		var base []byte
		for _, pf := range ps {
			if pf.p.Provisional == nil && pf.p.Version.MinorString() == facts.BaseMinor() {
				if base, err = os.ReadFile(pf.path); err != nil {
					return err
				}
			}
		}
		if base == nil {
			return fmt.Errorf("%s: no recorded profile of %s to derive from", f, facts.BaseMinor())
		}
		snap, err := profilerecord.Derive(base, facts)
		if err != nil {
			return fmt.Errorf("%s: %w (run make profiles-provisional again with the release's newest modules)", f, err)
		}
		b, err := profilerecord.MarshalProvisional(snap)
		if err != nil {
			return err
		}
		path := filepath.Join(out, snap.Servers[0].Version+".json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
		log.Printf("provisional profile %s written to %s", snap.Servers[0].Version, path)
	}
	return nil
}

// readFactsFile reads one committed facts file, naming it in an error.
func readFactsFile(path string) (*profilerecord.UpstreamFacts, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	facts, err := profilerecord.ReadUpstreamFacts(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return facts, nil
}
