package profilerecord

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// This file reads what a Kubernetes release will serve from its published modules, before
// its kube-apiserver can be built (k8s.io/kubernetes publishes no module of a release before
// it ships, k8s.io/api and k8s.io/apiserver do): the kinds whose prerelease-lifecycle says
// they are removed or introduced in the release (k8s.io/api zz_generated.prerelease-lifecycle.go,
// which kube-apiserver applies at startup, k8s.io/apiserver pkg/server/deleted_kinds.go), the
// group/version packages added or removed since the base release, and the feature gates of
// k8s.io/apiserver pkg/features/kube_features.go. The facts are written to a small file that
// is committed; Derive makes the provisional profile from it without network or toolchain.

// Module is one published module read, as `go mod download -json` reports it.
type Module struct {
	Path    string `json:"path"`
	Version string `json:"version"`
	// Sum is its go.sum hash (h1:…): the module cache verified the files against it.
	Sum string `json:"sum"`
	// Time is when the version was published.
	Time string `json:"time,omitempty"`
	// Dir is where the module cache holds it (not written to the facts file).
	Dir string `json:"-"`
}

// ID is path@version.
func (m Module) ID() string { return m.Path + "@" + m.Version }

// KindFact is one kind of k8s.io/api and the line that says it.
type KindFact struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
	// Cite is module@version/file:line.
	Cite string `json:"cite"`
	// dir is the package's directory in the module (slash-separated).
	dir string
}

// GroupVersion is group/version, or the version alone for the core group.
func (k KindFact) GroupVersion() string {
	if k.Group == "" {
		return k.Version
	}
	return k.Group + "/" + k.Version
}

// GateFact is one feature gate of k8s.io/apiserver at the release.
type GateFact struct {
	Name    string `json:"name"`
	Default bool   `json:"default"`
	Stage   string `json:"stage"`
	Locked  bool   `json:"locked,omitempty"`
	Cite    string `json:"cite"`
}

// PeerProxyFact says whether the peer proxy's code changed between the releases.
type PeerProxyFact struct {
	Dir string `json:"dir"`
	// Files is how many files the release's directory holds.
	Files int `json:"files"`
	// Identical is true when both directories hold the same files, byte for byte.
	Identical bool `json:"identical"`
	// Changed lists the files added, removed or changed, when not identical.
	Changed []string `json:"changed,omitempty"`
}

// FileHash is the SHA-256 of one file a fact cites.
type FileHash struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
}

// UpstreamFacts is what the published modules of a release say that a profile holds.
type UpstreamFacts struct {
	// Release is the minor the modules are a prerelease of ("1.38").
	Release string `json:"release"`
	// Modules are the release's modules, then the base release's they are compared with.
	Modules []Module `json:"modules"`
	// Removed are the kinds whose lifecycle says they are no longer served from Release.
	Removed []KindFact `json:"removed"`
	// Introduced are the kinds whose lifecycle says they are new in Release.
	Introduced []KindFact `json:"introduced"`
	// GroupVersionsAdded and GroupVersionsRemoved are k8s.io/api's group/version packages
	// (Kind empty) that the release has and the base release has not, and the reverse.
	GroupVersionsAdded   []KindFact `json:"groupVersionsAdded"`
	GroupVersionsRemoved []KindFact `json:"groupVersionsRemoved"`
	// ProxyGate is the peer-proxy feature gate at Release.
	ProxyGate GateFact `json:"proxyGate"`
	// GatesAdded and GatesRemoved are k8s.io/apiserver's gates the release has that the base
	// release has not, and the reverse.
	GatesAdded   []GateFact `json:"gatesAdded"`
	GatesRemoved []GateFact `json:"gatesRemoved"`
	// PeerProxy compares k8s.io/apiserver's pkg/util/peerproxy, the proxy's code, in the
	// release and the base release.
	PeerProxy PeerProxyFact `json:"peerProxy"`
	// Kubernetes is what k8s.io/kubernetes of the release registers, when a prerelease of it is
	// published (nil before: the rest is then assumed as in the base profile).
	Kubernetes *KubernetesFacts `json:"kubernetes,omitempty"`
	// Files hashes every file cited, so that a re-extraction shows the facts came from them.
	Files []FileHash `json:"files"`
}

// Marshal is the facts file's bytes: indented JSON, fields in a fixed order, lists sorted.
func (f *UpstreamFacts) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ReadUpstreamFacts reads a facts file.
func ReadUpstreamFacts(data []byte) (*UpstreamFacts, error) {
	var f UpstreamFacts
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a facts file: %w", err)
	}
	if _, err := releaseMinor(f.Release); err != nil {
		return nil, err
	}
	if len(f.Modules) != 4 {
		return nil, fmt.Errorf("%d modules: want k8s.io/api and k8s.io/apiserver of the release and of the base", len(f.Modules))
	}
	return &f, nil
}

// The modules read, in the order UpstreamSources lists them.
const (
	apiModule       = "k8s.io/api"
	apiserverModule = "k8s.io/apiserver"
)

// UpstreamSources are the modules the facts are read from: k8s.io/api and k8s.io/apiserver of
// the release (a prerelease, v0.38.0-alpha.2 for 1.38) and of the base release (the version
// of the recorded profile the provisional one is derived from, v0.37.2 for v1.37.2).
type UpstreamSources struct {
	API, APIServer, BaseAPI, BaseAPIServer Module
	// Kubernetes is k8s.io/kubernetes of the release (v1.38.0-beta.0), or zero when the proxy
	// has no prerelease of it.
	Kubernetes Module
}

// ModuleVersions are the module versions to read for a release's prerelease modules
// (v0.38.0-alpha.2) and a base profile's version (v1.37.2 reads v0.37.2).
func ModuleVersions(prerelease, baseProfile string) (release, base string, err error) {
	m := regexp.MustCompile(`^v0\.(\d+)\.0-(alpha|beta|rc)\.\d+$`).FindStringSubmatch(prerelease)
	if m == nil {
		return "", "", fmt.Errorf("%q is not a prerelease module version (v0.MINOR.0-alpha.N, -beta.N or -rc.N)", prerelease)
	}
	b := regexp.MustCompile(`^v1\.(\d+)\.(\d+)$`).FindStringSubmatch(baseProfile)
	if b == nil {
		return "", "", fmt.Errorf("base profile %q is not a release version (v1.MINOR.PATCH)", baseProfile)
	}
	if rm, _ := strconv.Atoi(m[1]); rm != atoi(b[1])+1 {
		return "", "", fmt.Errorf("modules %s are of 1.%s, not of the minor after the newest recorded profile %s", prerelease, m[1], baseProfile)
	}
	return "1." + m[1], "v0." + b[1] + "." + b[2], nil
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// ExtractUpstream reads the facts of release ("1.38") from the modules' directories.
func ExtractUpstream(release string, src UpstreamSources) (*UpstreamFacts, error) {
	minor, err := releaseMinor(release)
	if err != nil {
		return nil, err
	}
	x := &extractor{hashes: map[string]string{}}
	f := &UpstreamFacts{Release: release, Modules: []Module{src.API, src.APIServer, src.BaseAPI, src.BaseAPIServer},
		Removed: []KindFact{}, Introduced: []KindFact{}, GatesAdded: []GateFact{}, GatesRemoved: []GateFact{}}
	gvs, err := x.groupVersions(src.API)
	if err != nil {
		return nil, err
	}
	baseGVs, err := x.groupVersions(src.BaseAPI)
	if err != nil {
		return nil, err
	}
	f.GroupVersionsAdded, f.GroupVersionsRemoved = diffGVs(gvs, baseGVs), diffGVs(baseGVs, gvs)
	for _, gv := range gvs {
		if err := x.lifecycle(src.API, gv, minor, f); err != nil {
			return nil, err
		}
	}
	gates, err := x.gates(src.APIServer, minor)
	if err != nil {
		return nil, err
	}
	baseGates, err := x.gates(src.BaseAPIServer, minor-1)
	if err != nil {
		return nil, err
	}
	g, ok := gates[mvp.FeatureGate]
	if !ok {
		return nil, fmt.Errorf("%s pkg/features/kube_features.go has no %s", src.APIServer.ID(), mvp.FeatureGate)
	}
	f.ProxyGate = g
	if f.PeerProxy, err = comparePeerProxy(src.APIServer, src.BaseAPIServer); err != nil {
		return nil, err
	}
	f.GatesAdded, f.GatesRemoved = diffGates(gates, baseGates), diffGates(baseGates, gates)
	for _, list := range [][]KindFact{f.Removed, f.Introduced} {
		sort.Slice(list, func(i, j int) bool { return kindKey(list[i]) < kindKey(list[j]) })
	}
	cited := map[string]bool{}
	for _, list := range [][]KindFact{f.Removed, f.Introduced, f.GroupVersionsAdded, f.GroupVersionsRemoved} {
		for _, k := range list {
			cited[k.Cite[:strings.LastIndex(k.Cite, ":")]] = true
		}
	}
	for _, g := range append(append([]GateFact{f.ProxyGate}, f.GatesAdded...), f.GatesRemoved...) {
		cited[g.Cite[:strings.LastIndex(g.Cite, ":")]] = true
	}
	for file := range cited {
		f.Files = append(f.Files, FileHash{File: file, SHA256: x.hashes[file]})
	}
	if src.Kubernetes.Path != "" {
		kf, hashes, err := ExtractKubernetes(src.Kubernetes, src.API, src.APIServer, minor)
		if err != nil {
			return nil, err
		}
		f.Kubernetes = kf
		for _, h := range hashes {
			if !cited[h.File] {
				f.Files = append(f.Files, h)
			}
		}
	}
	sort.Slice(f.Files, func(i, j int) bool { return f.Files[i].File < f.Files[j].File })
	return f, nil
}

// BaseMinor is the minor before Release, whose recorded profile the provisional one is
// derived from ("1.37").
func (f *UpstreamFacts) BaseMinor() string {
	m, _ := releaseMinor(f.Release)
	return fmt.Sprintf("1.%d", m-1)
}

func releaseMinor(release string) (int, error) {
	m := regexp.MustCompile(`^1\.(\d+)$`).FindStringSubmatch(release)
	if m == nil {
		return 0, fmt.Errorf("release %q: want 1.MINOR", release)
	}
	return atoi(m[1]), nil
}

func kindKey(k KindFact) string { return k.Group + "/" + k.Version + "/" + k.Kind }

type extractor struct {
	hashes map[string]string // module@version/file → sha256
	// For k8s.io/kubernetes (upstream_kubernetes.go): parsed packages by module@version/dir,
	// the modules read, and k8s.io/api's group/versions by package directory.
	pkgs      map[string][]*goFile
	kube, api Module
	apiDirs   map[string]KindFact
}

// cite is module@version/file:line, and hashes the file once.
func (x *extractor) cite(m Module, rel string, data []byte, line int) string {
	key := m.ID() + "/" + rel
	if _, ok := x.hashes[key]; !ok {
		x.hashes[key] = sha256Hex(data)
	}
	return fmt.Sprintf("%s:%d", key, line)
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
