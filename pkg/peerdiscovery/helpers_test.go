package peerdiscovery

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// capture is the real control plane recorded by test/e2e TestDiscovery (testdata/README.md).
const capture = "testdata/v1.36.3-v1.37.1"

// Server IDs of the capture, in the ascending order the merge uses.
const (
	idB = "apiserver-7ptmxx4cnnc7oh7ap4amtjtp5u" // kas-b: v1.36.3, every API but batch/v1
	idA = "apiserver-bcsebmar26aaihy3plknllgtgm" // kas-a: v1.36.3, every API
	idC = "apiserver-phcdnhy4rsacr32whef6wclgia" // kas-c: v1.37.1, defaults
)

func gunzip(t testing.TB, name string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join(capture, name+".gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// load reads a captured snapshot (steady or stale).
func load(t testing.TB, name string) *snapshot.Snapshot {
	t.Helper()
	s, err := snapshot.LoadFile(filepath.Join(capture, name+".snapshot.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// own returns a server's own /apis groups from the steady capture.
func own(t testing.TB, snap *snapshot.Snapshot, name string) []Group {
	t.Helper()
	s := snap.Find(name)
	if s == nil || s.APIs == nil {
		t.Fatalf("no document for %s", name)
	}
	return s.APIs.Items
}

// pick returns a small document: the named groups of a real one, in its order, deep-copied.
func pick(t testing.TB, groups []Group, names ...string) []Group {
	t.Helper()
	var out []Group
	for _, g := range groups {
		for _, n := range names {
			if g.Name == n {
				out = append(out, *g.DeepCopy())
			}
		}
	}
	if len(out) != len(names) {
		t.Fatalf("pick %v: found %d groups", names, len(out))
	}
	return out
}

func groupNames(gs []Group) []string { return names(gs) }

func find(gs []Group, group, version string) *apidiscoveryv2.APIVersionDiscovery {
	for i := range gs {
		if gs[i].Name != group {
			continue
		}
		for j := range gs[i].Versions {
			if gs[i].Versions[j].Version == version {
				return &gs[i].Versions[j]
			}
		}
	}
	return nil
}

func findResource(gs []Group, group, version, resource string) *apidiscoveryv2.APIResourceDiscovery {
	v := find(gs, group, version)
	if v == nil {
		return nil
	}
	for i := range v.Resources {
		if v.Resources[i].Resource == resource {
			return &v.Resources[i]
		}
	}
	return nil
}
