package replay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// sparseFile makes a file of size bytes without writing them: its size is what the budget sees.
func sparseFile(t *testing.T, dir, name string, size int64) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

// TestBudgetOverAllManifests: the budget is the run's, not a path's: a second path that does
// not fit in what the first left is refused before it is read, and one file larger than the
// whole budget is refused before a byte of it is read (a sparse file of NULs would not parse).
func TestBudgetOverAllManifests(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "first.yaml")
	if err := os.WriteFile(first, []byte("apiVersion: batch/v1\nkind: Job\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	big := sparseFile(t, dir, "big.yaml", MaxEvidenceBytes)
	b := NewBudget()
	objs, err := ReadManifestsWithin(first, nil, b)
	if err != nil || len(objs) != 1 {
		t.Fatalf("first: %v %v", objs, err)
	}
	_, err = ReadManifestsWithin(big, nil, b)
	be, ok := AsBudgetError(err)
	if !ok || be.At != big || be.Bound != "128 MiB" {
		t.Fatalf("second: %v, want it cut at the budget before it is read", err)
	}
	// Spent: nothing more is read, whatever its size.
	if _, err := ReadManifestsWithin(first, nil, b); err == nil {
		t.Error("a spent budget read on")
	}
	huge := sparseFile(t, dir, "huge.yaml", 283_000_000)
	if _, err := ReadManifestsWithin(huge, nil, NewBudget()); !strings.Contains(err.Error(), "cut at "+huge) {
		t.Errorf("a file over the whole budget: %v", err)
	}
}

// TestBudgetStdin: a stream without a size is cut where its bytes pass the budget.
func TestBudgetStdin(t *testing.T) {
	b := NewBudget()
	if err := b.Take(MaxEvidenceBytes-100, "before"); err != nil {
		t.Fatal(err)
	}
	objs, err := ReadManifestsWithin("-", strings.NewReader("apiVersion: v1\nkind: ConfigMap\n---\n"+strings.Repeat("# pad\n", 100)), b)
	if _, ok := AsBudgetError(err); !ok {
		t.Fatalf("objects %v, error %v: want the budget's", objs, err)
	}
	// Read document by document: the objects read before the budget was reached are kept.
	b = NewBudget()
	if err := b.Take(MaxEvidenceBytes-100<<10, "before"); err != nil {
		t.Fatal(err)
	}
	objs, err = ReadManifestsWithin("-", strings.NewReader(strings.Repeat("apiVersion: v1\nkind: ConfigMap\n---\n", 10000)), b)
	if _, ok := AsBudgetError(err); !ok || len(objs) == 0 || len(objs) >= 100<<10/34 {
		t.Fatalf("%d objects, error %v: want the budget's, and the objects of the 100 KiB before it", len(objs), err)
	}
}

// TestHelmMapperBudget: releases are mapped one by one within the budget; at it the source is
// cut, said so, and holds what was read before; an older revision is never read.
func TestHelmMapperBudget(t *testing.T) {
	doc := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n"
	manifest := strings.Repeat(doc, 1000)
	m := NewHelmMapper(&Budget{max: 2*int64(len(manifest)) + 10, bytes: 2*int64(len(manifest)) + 10, docs: 10000, objs: 10000})
	var stopped int
	for i := range 5 {
		if err := m.Add(snapshot.HelmRelease{Namespace: "ns", Name: string(rune('a' + i)), Revision: 1}, []byte(manifest)); err != nil {
			stopped = i
			break
		}
	}
	if stopped != 2 {
		t.Fatalf("stopped at release %d, want 2 (the third passes the budget)", stopped)
	}
	if err := m.Add(snapshot.HelmRelease{Namespace: "ns", Name: "a", Revision: 0}, []byte("not: [yaml")); err == nil {
		// an older revision is skipped before the budget is asked
	} else if _, ok := AsBudgetError(err); !ok {
		t.Errorf("an older revision was read: %v", err)
	}
	ev := m.Evidence(&snapshot.Snapshot{})
	src := ev.Sources[0]
	if src.Cut == "" || !strings.Contains(src.Cut, "helm release ns/c (revision 1)") || src.Objects != 2000 || src.Error != "" {
		t.Errorf("source %+v", src)
	}
	if got := ev.Cut(); got == nil || got.String() != "client evidence past its budget (cut at helm release ns/c (revision 1), where the run reached its bound of 0 MiB over all sources): the rest of the Helm releases 2 release(s) (2000 object(s) read)" {
		t.Errorf("cut reads %q", got)
	}
}

// TestHelmMapperRefuse: Room is what the budget holds; a record whose manifest was past it
// (measured, not kept) reaches the budget there, unless a newer revision of its release was
// mapped already; once spent, Room is 0.
func TestHelmMapperRefuse(t *testing.T) {
	m := NewHelmMapper(&Budget{max: 100, bytes: 100, docs: 10, objs: 10})
	if err := m.Add(snapshot.HelmRelease{Namespace: "ns", Name: "a", Revision: 2}, []byte("apiVersion: v1\nkind: ConfigMap\n")); err != nil || m.Room() != 100-31 {
		t.Fatalf("add: %v, room %d", err, m.Room())
	}
	if err := m.Refuse(snapshot.HelmRelease{Namespace: "ns", Name: "a", Revision: 1}, 1000); err != nil || m.Room() != 69 {
		t.Errorf("an older revision refused: %v, room %d; want it skipped", err, m.Room())
	}
	err := m.Refuse(snapshot.HelmRelease{Namespace: "ns", Name: "b", Revision: 1}, 70)
	if be, ok := AsBudgetError(err); !ok || be.At != "helm release ns/b (revision 1)" || m.Room() != 0 {
		t.Errorf("refused: %v, room %d; want the budget's error there, and no room", err, m.Room())
	}
	if src := m.Evidence(&snapshot.Snapshot{}).Sources[0]; !strings.Contains(src.Cut, "ns/b") || src.Objects != 1 {
		t.Errorf("source %+v", src)
	}
}

// TestBudgetStopsWithItsContext: once the run's context is done, a read stops at the next
// document with the context's error, and a Helm mapper reads no more.
func TestBudgetStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	b := NewBudget()
	b.StopWith(ctx)
	cancel()
	if _, err := ReadManifestsWithin("-", strings.NewReader("apiVersion: v1\nkind: ConfigMap\n"), b); !errors.Is(err, context.Canceled) {
		t.Errorf("manifests: %v", err)
	}
	if err := NewHelmMapper(b).Add(snapshot.HelmRelease{Namespace: "ns", Name: "a", Revision: 1}, []byte("apiVersion: v1\nkind: ConfigMap\n")); !errors.Is(err, context.Canceled) {
		t.Errorf("helm: %v", err)
	}
}
