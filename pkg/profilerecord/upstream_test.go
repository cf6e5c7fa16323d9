package profilerecord

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func testModule(path, version, dir string) Module {
	return Module{Path: path, Version: version, Sum: "h1:" + dir, Time: "2026-10-08T18:31:23Z", Dir: filepath.Join("testdata", "upstream", dir)}
}

func testSources() UpstreamSources {
	return UpstreamSources{
		API: testModule(apiModule, "v0.38.0-alpha.1", "api-new"), APIServer: testModule(apiserverModule, "v0.38.0-alpha.1", "apiserver-new"),
		BaseAPI: testModule(apiModule, "v0.37.2", "api-base"), BaseAPIServer: testModule(apiserverModule, "v0.37.2", "apiserver-base"),
	}
}

// TestExtractUpstream reads a miniature of the modules: a kind removed in the release (its List
// left out), one removed later (not this release's), one introduced, a group/version each way,
// the proxy gate as it stands at the release (not its later GA spec), a gate each way.
func TestExtractUpstream(t *testing.T) {
	f, err := ExtractUpstream("1.38", testSources())
	if err != nil {
		t.Fatal(err)
	}
	lifecycle := "k8s.io/api@v0.38.0-alpha.1/things/v1beta1/zz_generated.prerelease-lifecycle.go"
	want := &UpstreamFacts{Release: "1.38", Modules: []Module{testSources().API, testSources().APIServer, testSources().BaseAPI, testSources().BaseAPIServer},
		Removed:              []KindFact{{Group: "things.example.io", Version: "v1beta1", Kind: "Widget", Cite: lifecycle + ":8"}},
		Introduced:           []KindFact{{Group: "things.example.io", Version: "v1beta1", Kind: "Gizmo", Cite: lifecycle + ":20"}},
		GroupVersionsAdded:   []KindFact{{Group: "things.example.io", Version: "v1", Cite: "k8s.io/api@v0.38.0-alpha.1/things/v1/register.go:3"}},
		GroupVersionsRemoved: []KindFact{{Group: "old.example.io", Version: "v1alpha1", Cite: "k8s.io/api@v0.37.2/old/v1alpha1/register.go:3"}},
		ProxyGate:            GateFact{Name: mvp.FeatureGate, Default: true, Stage: "Beta", Cite: "k8s.io/apiserver@v0.38.0-alpha.1/pkg/features/kube_features.go:14"},
		GatesAdded:           []GateFact{{Name: "NewThing", Stage: "Alpha", Cite: "k8s.io/apiserver@v0.38.0-alpha.1/pkg/features/kube_features.go:10"}},
		GatesRemoved:         []GateFact{{Name: "OldThing", Default: true, Stage: "Deprecated", Locked: true, Cite: "k8s.io/apiserver@v0.37.2/pkg/features/kube_features.go:10"}},
		PeerProxy:            PeerProxyFact{Dir: "pkg/util/peerproxy", Files: 2, Changed: []string{"added.txt"}},
	}
	for i := range f.GroupVersionsAdded {
		f.GroupVersionsAdded[i].dir = ""
	}
	for i := range f.GroupVersionsRemoved {
		f.GroupVersionsRemoved[i].dir = ""
	}
	var files []string
	for _, h := range f.Files {
		files = append(files, h.File)
		mod, rel := splitCitedFile(h.File)
		data, err := os.ReadFile(filepath.Join("testdata", "upstream", map[string]string{
			"k8s.io/api@v0.38.0-alpha.1": "api-new", "k8s.io/api@v0.37.2": "api-base",
			"k8s.io/apiserver@v0.38.0-alpha.1": "apiserver-new", "k8s.io/apiserver@v0.37.2": "apiserver-base"}[mod], rel))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256Hex(data); got != h.SHA256 {
			t.Errorf("%s: sha256 %s, the file's is %s", h.File, h.SHA256, got)
		}
	}
	f.Files = nil
	if !reflect.DeepEqual(f, want) {
		t.Errorf("facts:\n got %+v\nwant %+v", f, want)
	}
	if want := []string{"k8s.io/api@v0.37.2/old/v1alpha1/register.go", "k8s.io/api@v0.38.0-alpha.1/things/v1/register.go", lifecycle,
		"k8s.io/apiserver@v0.37.2/pkg/features/kube_features.go", "k8s.io/apiserver@v0.38.0-alpha.1/pkg/features/kube_features.go"}; !reflect.DeepEqual(files, want) {
		t.Errorf("files hashed:\n got %q\nwant %q", files, want)
	}
}

func TestModuleVersions(t *testing.T) {
	for _, tc := range []struct{ pre, base, release, baseMod, err string }{
		{"v0.38.0-alpha.2", "v1.37.2", "1.38", "v0.37.2", ""},
		{"v0.39.0-alpha.1", "v1.38.1", "1.39", "v0.38.1", ""},
		{"v0.39.0-rc.0", "v1.38.1", "1.39", "v0.38.1", ""},
		{"v0.39.0-alpha.1", "v1.37.2", "", "", "not of the minor after"},
		{"v0.38.0", "v1.37.2", "", "", "not a prerelease"},
		{"v0.38.0-alpha.2", "v1.37.2-provisional", "", "", "not a release version"},
	} {
		release, baseMod, err := ModuleVersions(tc.pre, tc.base)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %s: error %v, want one containing %q", tc.pre, tc.base, err, tc.err)
			}
			continue
		}
		if err != nil || release != tc.release || baseMod != tc.baseMod {
			t.Errorf("%s %s: %s %s %v, want %s %s", tc.pre, tc.base, release, baseMod, err, tc.release, tc.baseMod)
		}
	}
}

const profilesDir = "../profile/profiles"

// provisionalFacts reads every committed facts file and the recorded profile each derives from.
func provisionalFacts(t *testing.T) map[string]struct {
	facts *UpstreamFacts
	base  []byte
} {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(profilesDir, "provisional", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no facts file in %s/provisional (%v)", profilesDir, err)
	}
	recorded := map[string]string{} // minor → newest recorded file
	profiles, _ := filepath.Glob(filepath.Join(profilesDir, "*.json"))
	for _, f := range profiles {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := profile.Decode(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if p.Provisional == nil {
			recorded[p.Version.MinorString()] = f
		}
	}
	out := map[string]struct {
		facts *UpstreamFacts
		base  []byte
	}{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		facts, err := ReadUpstreamFacts(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if r, ok := recorded[facts.Release]; ok {
			t.Errorf("%s: %s is recorded (%s): make profiles removes the facts and the provisional profile", f, facts.Release, r)
			continue
		}
		base, err := os.ReadFile(recorded[facts.BaseMinor()])
		if err != nil {
			t.Fatalf("%s: no recorded profile of %s: %v", f, facts.BaseMinor(), err)
		}
		out[f] = struct {
			facts *UpstreamFacts
			base  []byte
		}{facts, base}
	}
	return out
}

// TestEmbeddedProvisionalIsDerived: every embedded provisional profile is, byte for byte, what
// Derive makes of its committed facts and the recorded profile before it — the profile is never
// edited by hand, and a change of Derive shows here (make profiles-provisional re-derives).
func TestEmbeddedProvisionalIsDerived(t *testing.T) {
	for f, in := range provisionalFacts(t) {
		snap, err := Derive(in.base, in.facts)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		got, err := MarshalProvisional(snap)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(profilesDir, snap.Servers[0].Version+".json")
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: the profile derived from %s is not embedded: %v (run make profiles-provisional)", path, f, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what %s derives: run make profiles-provisional", path, f)
		}
		again, _ := Derive(in.base, in.facts)
		if b, _ := MarshalProvisional(again); !bytes.Equal(b, got) {
			t.Errorf("%s: two derivations differ", f)
		}
	}
}

// TestRemovedRulesAgreeWithFacts: pkg/mvp's removed group/versions are exactly the
// group/versions every kind of which the facts say the release removes (from the k8s.io/api
// lines the facts cite), and the facts cite a file whose hash they record.
func TestRemovedRulesAgreeWithFacts(t *testing.T) {
	for f, in := range provisionalFacts(t) {
		hashed := map[string]bool{}
		for _, h := range in.facts.Files {
			hashed[h.File] = len(h.SHA256) == 64
		}
		removed := map[string]bool{}
		for _, k := range in.facts.Removed {
			removed[k.GroupVersion()] = true
			if file := k.Cite[:strings.LastIndex(k.Cite, ":")]; !hashed[file] || !strings.HasPrefix(file, "k8s.io/api@"+in.facts.Modules[0].Version+"/") ||
				!strings.HasSuffix(file, "/zz_generated.prerelease-lifecycle.go") {
				t.Errorf("%s: %s %s cites %s: want a hashed prerelease-lifecycle file of the release's k8s.io/api", f, k.GroupVersion(), k.Kind, k.Cite)
			}
		}
		minor, _ := releaseMinor(in.facts.Release)
		var want []string
		for gv := range removed {
			want = append(want, gv)
		}
		got := mvp.RemovedGroupVersions(snapshot.Version{Major: 1, Minor: minor})
		sort.Strings(want)
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Errorf("%s: the facts remove %v in %s, pkg/mvp's rules %v", f, want, in.facts.Release, got)
		}
	}
}

// splitCitedFile splits module@version/path into the module and the path.
func splitCitedFile(file string) (mod, rel string) {
	at := strings.Index(file, "@")
	slash := at + strings.Index(file[at:], "/")
	return file[:slash], file[slash+1:]
}
