package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/profilerecord"
)

// A prerelease of kube-apiserver (v1.38.0-beta.0) can be built, and so recorded like a
// release, only when the module proxy serves every module it is built from; until then its
// profile is derived from its modules (provisional.go). Both make profiles and make
// profiles-provisional say, in one line, which modules are missing.

// fetcher downloads modules into the module cache and returns those it could, in order, and
// the path@version of those the proxy does not serve.
type fetcher func(toolchain string, modules ...string) (got []profilerecord.Module, missing []string, err error)

// kubernetesVersion is k8s.io/kubernetes's version of a prerelease of the staging modules
// (v0.38.0-beta.0 → v1.38.0-beta.0).
func kubernetesVersion(staging string) string { return "v1." + strings.TrimPrefix(staging, "v0.") }

// buildModules are the modules a kube-apiserver of k8s.io/kubernetes kubeVersion is built from:
// its go.mod's requirements, each staging module it replaces by a ./staging path taken at the
// prerelease's own version (as tools/kube-apiserver/gen.sh maps them).
func buildModules(gomod []byte, kubeVersion string) ([]string, error) {
	staging := "v0." + strings.TrimPrefix(kubeVersion, "v1.")
	replaced := map[string]bool{}
	var required []string
	block := ""
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		line := strings.TrimSpace(strings.SplitN(sc.Text(), "//", 2)[0])
		switch {
		case line == ")":
			block = ""
		case line == "require (" || line == "replace (":
			block = strings.Fields(line)[0]
		case strings.HasPrefix(line, "require ") && !strings.HasSuffix(line, "("):
			required = append(required, strings.TrimPrefix(line, "require "))
		case block == "require" && line != "":
			required = append(required, line)
		case (block == "replace" || strings.HasPrefix(line, "replace ")) && strings.Contains(line, "=> ./staging/"):
			replaced[strings.Fields(strings.TrimPrefix(line, "replace "))[0]] = true
		}
	}
	var out []string
	for _, r := range required {
		f := strings.Fields(r)
		if len(f) != 2 {
			return nil, fmt.Errorf("go.mod of k8s.io/kubernetes@%s: cannot read %q", kubeVersion, r)
		}
		if replaced[f[0]] {
			f[1] = staging
		}
		out = append(out, f[0]+"@"+f[1])
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("go.mod of k8s.io/kubernetes@%s requires nothing", kubeVersion)
	}
	sort.Strings(out)
	return out, nil
}

// unbuildable downloads k8s.io/kubernetes kubeVersion and every module it is built from, and
// returns those the proxy does not serve (k8s.io/kubernetes itself, when it is not published).
func unbuildable(fetch fetcher, toolchain, kubeVersion string) ([]string, error) {
	got, missing, err := fetch(toolchain, "k8s.io/kubernetes@"+kubeVersion)
	if err != nil || len(missing) > 0 {
		return missing, err
	}
	gomod, err := os.ReadFile(got[0].Dir + "/go.mod")
	if err != nil {
		return nil, err
	}
	mods, err := buildModules(gomod, kubeVersion)
	if err != nil {
		return nil, err
	}
	_, missing, err = fetch(toolchain, mods...)
	return missing, err
}

// missingLine is the one line that names what a prerelease lacks.
func missingLine(kubeVersion string, missing []string) string {
	return fmt.Sprintf("kube-apiserver %s cannot be built from the module proxy: it does not serve %s", kubeVersion, strings.Join(missing, ", "))
}

var prereleaseVersion = regexp.MustCompile(`^v0\.(\d+)\.0-(alpha|beta|rc)\.(\d+)$`)

// newestPrerelease is the newest prerelease of minor among versions (`go list -m -versions
// k8s.io/api`, oldest first).
func newestPrerelease(versions []string, minor int) (string, error) {
	best := ""
	rank := func(v string) [3]int {
		m := prereleaseVersion.FindStringSubmatch(v)
		stage := map[string]int{"alpha": 0, "beta": 1, "rc": 2}[m[2]]
		n := 0
		fmt.Sscan(m[3], &n)
		return [3]int{stage, n}
	}
	for _, v := range versions {
		m := prereleaseVersion.FindStringSubmatch(v)
		if m == nil || m[1] != fmt.Sprint(minor) {
			continue
		}
		if best == "" || less(rank(best), rank(v)) {
			best = v
		}
	}
	if best == "" {
		return "", fmt.Errorf("the module proxy lists no prerelease of k8s.io/api v0.%d.0", minor)
	}
	return best, nil
}

func less(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// prereleasesBuildable checks, for every provisional profile whose facts were read from a
// k8s.io/kubernetes prerelease, that the proxy serves every module its kube-apiserver is built
// from; the error names those it does not, in one line per prerelease.
// A release being recorded (a version of recording of the same minor) needs no check: its
// recording replaces the derived profile.
func prereleasesBuildable(fetch fetcher, toolchain, out string, recording []string) error {
	files, err := filepath.Glob(filepath.Join(factsDir(out), "*.json"))
	if err != nil {
		return err
	}
	var lines []string
	for _, f := range files {
		facts, err := readFactsFile(f)
		if err != nil {
			return err
		}
		if facts.Kubernetes == nil || recordsMinor(recording, facts.Release) {
			continue
		}
		v := facts.Kubernetes.Module.Version
		missing, err := unbuildable(fetch, toolchain, v)
		if err != nil {
			return err
		}
		if len(missing) > 0 {
			lines = append(lines, fmt.Sprintf("%s (its %s profile stays the one derived from its modules: %s)", missingLine(v, missing), facts.Release, filepath.Base(f)))
		}
	}
	if len(lines) > 0 {
		return errors.New(strings.Join(lines, "; "))
	}
	return nil
}

func recordsMinor(versions []string, release string) bool {
	for _, v := range versions {
		if strings.HasPrefix(v, "v"+release+".") {
			return true
		}
	}
	return false
}
