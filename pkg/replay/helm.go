package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// HelmMapper maps the Helm release records of a run as they are read, one at a time, within
// the run's budget: of each release only its newest revision's objects are kept (apiVersion,
// kind, line), never its manifest's text.
type HelmMapper struct {
	budget *Budget
	newest map[string]helmObjects
	// err is the first manifest that did not parse; cut, the budget's error once spent.
	err string
	cut *BudgetError
}

type helmObjects struct {
	revision int
	// read is the release's objects and the documents of its manifest that did not parse.
	read ManifestRead
}

// NewHelmMapper maps records within budget.
func NewHelmMapper(budget *Budget) *HelmMapper {
	return &HelmMapper{budget: budget, newest: map[string]helmObjects{}}
}

// Room is how many bytes of manifest the budget still holds: a longer one is refused.
func (m *HelmMapper) Room() int64 { return m.budget.Room() }

// Add maps one record's manifest, unless a newer revision of its release was mapped already.
// At the budget it returns the budget's error: read no more records. The manifest is not kept.
func (m *HelmMapper) Add(rel snapshot.HelmRelease, manifest []byte) error {
	return m.add(rel, manifest, int64(len(manifest)))
}

// Refuse is told of a record whose manifest, size bytes long, was not kept because it is past
// Room: unless a newer revision of its release was mapped already, the budget is reached there
// and its error returned.
func (m *HelmMapper) Refuse(rel snapshot.HelmRelease, size int64) error {
	return m.add(rel, nil, size)
}

func (m *HelmMapper) add(rel snapshot.HelmRelease, manifest []byte, size int64) error {
	if spent := m.budget.Spent(); spent != nil {
		m.cut = spent
		return spent
	}
	key := rel.Namespace + "/" + rel.Name
	if old, ok := m.newest[key]; ok && old.revision >= rel.Revision {
		return nil
	}
	name := fmt.Sprintf("helm release %s/%s (revision %d)", rel.Namespace, rel.Name, rel.Revision)
	if err := m.budget.Take(size, name); err != nil {
		m.cut, _ = AsBudgetError(err)
		return err
	}
	if int64(len(manifest)) != size {
		return fmt.Errorf("helm release %s: a manifest of %d bytes within the budget was not read", name, size)
	}
	r := &manifestReader{source: "--helm-releases", budget: m.budget, files: 1}
	err := r.documents(bytes.NewReader(manifest), name)
	read := func() helmObjects {
		return helmObjects{rel.Revision, ManifestRead{Path: name, Objects: r.objs, Problems: r.problems, Files: r.files}}
	}
	if be, ok := AsBudgetError(err); ok {
		m.cut = be
		m.newest[key] = read()
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err // stopped (Budget.StopWith): read no more
	}
	if err != nil {
		r.problems = append(r.problems, ManifestProblem{File: name, Message: err.Error()})
	}
	if len(r.problems) > 0 && m.err == "" {
		p := r.problems[0]
		m.err = fmt.Sprintf("%s %s: manifest line %d: %s", r.source, name, p.Line, p.Message)
	}
	m.newest[key] = read()
	return nil
}

// Reads are the releases mapped, one ManifestRead each (named by the release), in the order of
// their namespace and name: their objects are judged as a --manifests path's are.
func (m *HelmMapper) Reads() []ManifestRead {
	out := make([]ManifestRead, 0, len(m.newest))
	for _, k := range m.keys() {
		out = append(out, m.newest[k].read)
	}
	return out
}

func (m *HelmMapper) keys() []string {
	keys := make([]string, 0, len(m.newest))
	for k := range m.newest {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Evidence is one source for all the releases mapped: cut when the budget was spent.
func (m *HelmMapper) Evidence(snap *snapshot.Snapshot) ClientEvidence {
	ev := ClientEvidence{Clients: map[string][]Client{}}
	src := EvidenceSource{Kind: SourceHelmReleases, Name: fmt.Sprintf("%d release(s)", len(m.newest)), Read: true, Error: m.err}
	if m.cut != nil {
		src.Cut, src.Read = m.cut.Error(), len(m.newest) > 0
	}
	for _, k := range m.keys() {
		objs := m.newest[k].read.Objects
		src.Objects += len(objs)
		src.Unmapped += mapObjects(ev.Clients, objs, snap, SourceHelmReleases, "manifest line ")
	}
	ev.Sources = append(ev.Sources, src)
	return ev
}

// HelmEvidence maps the objects of each release's manifest as ManifestEvidence does; a client
// is named by its release and the line in its manifest. One source for all releases.
func HelmEvidence(releases []snapshot.HelmRelease, snap *snapshot.Snapshot) ClientEvidence {
	return mapReleases(releases).Evidence(snap)
}

// ReadHelmReleases reads the manifest of each release as ReadManifestSet reads a file: one
// ManifestRead per release, named by it.
func ReadHelmReleases(releases []snapshot.HelmRelease) []ManifestRead {
	return mapReleases(releases).Reads()
}

func mapReleases(releases []snapshot.HelmRelease) *HelmMapper {
	m := NewHelmMapper(NewBudget())
	for _, rel := range releases {
		if m.Add(rel, []byte(rel.Manifest)) != nil {
			break
		}
	}
	return m
}
