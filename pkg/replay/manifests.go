package replay

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Manifests on disk as client evidence (--manifests): every object's apiVersion and kind,
// mapped to a GVR through the snapshot's discovery; a client named FILE:LINE.

// SourceManifests is a file or directory of manifests, or stdin.
const SourceManifests = "manifests"

// ManifestObject is one object of a manifest: its apiVersion and kind, and where it is.
type ManifestObject struct {
	APIVersion, Kind string
	// File and Line are where its apiVersion is written ("stdin" for -).
	File string
	Line int
}

// manifestReader reads manifests within the run's budget.
type manifestReader struct {
	objs   []ManifestObject
	budget *Budget
	// source names the input in errors: the flag it came from.
	source string
}

// ReadManifests reads path: a YAML or JSON file (multi-document), a directory (every .yaml,
// .yml and .json file under it, in lexical order), or "-" for stdin (`helm template`,
// `kustomize build`). A `kind: List` (kubectl get -o yaml) is read item by item. It reads within
// a budget of its own (ReadManifestsWithin).
func ReadManifests(path string, stdin io.Reader) ([]ManifestObject, error) {
	return ReadManifestsWithin(path, stdin, NewBudget())
}

// ReadManifestsWithin is ReadManifests within what is left of budget: at the budget it returns
// the objects read before it and the budget's error (AsBudgetError); a file larger than what
// is left is refused before it is read.
func ReadManifestsWithin(path string, stdin io.Reader, budget *Budget) ([]ManifestObject, error) {
	r := &manifestReader{source: "--manifests", budget: budget}
	if path == "-" {
		err := r.read(budget.Reader(stdin, "stdin"), "stdin")
		return r.objs, err
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("--manifests %s: %w", path, err)
	}
	if !info.IsDir() {
		if !info.Mode().IsRegular() {
			return nil, fmt.Errorf("--manifests %s: not a regular file or a directory (for standard input, use --manifests -)", path)
		}
		err := r.readFile(path)
		return r.objs, err
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".yaml", ".yml", ".json":
			if d.IsDir() {
				return nil
			}
			// A FIFO or device named x.yaml would block or never end the read: a
			// manifest is a regular file (a symlink is followed to one).
			fi, err := os.Stat(p)
			if err != nil && d.Type()&fs.ModeSymlink != 0 {
				target, _ := os.Readlink(p)
				return fmt.Errorf("%s: a dangling symbolic link (to %s, which does not exist)", p, target)
			}
			if err != nil || !fi.Mode().IsRegular() {
				return fmt.Errorf("%s: not a regular file", p)
			}
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("--manifests %s: %w", path, err)
	}
	sort.Strings(files)
	for _, f := range files {
		if err := r.readFile(f); err != nil {
			return r.objs, err
		}
	}
	return r.objs, nil
}

// readFile reads a regular file: its size is taken from the budget before a byte is read, and
// no more than that size is read (a file that grows meanwhile is read as it was).
func (r *manifestReader) readFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", r.source, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", r.source, err)
	}
	if err := r.budget.Take(info.Size(), path); err != nil {
		return err
	}
	return r.read(io.LimitReader(f, info.Size()), path)
}

// read decodes in document by document, as it streams: only what each object says is kept.
func (r *manifestReader) read(in io.Reader, name string) error {
	dec := yaml.NewDecoder(in)
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if spent := r.budget.Spent(); spent != nil {
			return spent
		}
		if err != nil {
			return fmt.Errorf("%s %s: %s", r.source, name, strings.TrimPrefix(err.Error(), "yaml: "))
		}
		if err := r.budget.document(name); err != nil {
			return err
		}
		if len(doc.Content) == 1 {
			if err := r.object(doc.Content[0], name); err != nil {
				return err
			}
		}
	}
}

// object records n when it is an object with an apiVersion and a kind, and the items of a List.
func (r *manifestReader) object(n *yaml.Node, file string) error {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	var obj ManifestObject
	var items *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case k.Value == "apiVersion" && v.Kind == yaml.ScalarNode:
			obj.APIVersion, obj.Line = v.Value, k.Line
		case k.Value == "kind" && v.Kind == yaml.ScalarNode:
			obj.Kind = v.Value
		case k.Value == "items" && v.Kind == yaml.SequenceNode:
			items = v
		}
	}
	if items != nil && strings.HasSuffix(obj.Kind, "List") {
		for _, it := range items.Content {
			if err := r.object(it, file); err != nil {
				return err
			}
		}
		return nil
	}
	if obj.APIVersion != "" && obj.Kind != "" {
		if err := r.budget.object(file); err != nil {
			return err
		}
		obj.File = file
		r.objs = append(r.objs, obj)
	}
	return nil
}

// ManifestEvidence maps each object to the GVR some server of snap serves its kind at, and
// names it FILE:LINE. Objects of a kind no server serves are not clients of any GVR the
// upgrade can change: they are counted in the source (Unmapped), not listed.
func ManifestEvidence(path string, objs []ManifestObject, snap *snapshot.Snapshot) ClientEvidence {
	ev := ClientEvidence{Clients: map[string][]Client{}}
	unmapped := mapObjects(ev.Clients, objs, snap, SourceManifests, "")
	ev.Sources = append(ev.Sources, EvidenceSource{Kind: SourceManifests, Name: path, Read: true, Objects: len(objs), Unmapped: unmapped})
	return ev
}

// SourceHelmReleases is the newest revision of every Helm release in the cluster.
const SourceHelmReleases = "helm-releases"

// mapObjects adds a client to clients for each object of a kind some server of snap serves,
// and returns how many are of a kind none serves.
func mapObjects(clients map[string][]Client, objs []ManifestObject, snap *snapshot.Snapshot, kind, linePrefix string) int {
	type gvk struct{ gv, kind string }
	gvrOf := map[gvk]string{}
	for _, srv := range snap.Servers {
		for _, res := range srv.Resources {
			if res.Kind != "" {
				gvrOf[gvk{res.GVR().GroupVersion(), res.Kind}] = res.GVR().String()
			}
		}
	}
	unmapped := 0
	for _, o := range objs {
		gvr, ok := gvrOf[gvk{o.APIVersion, o.Kind}]
		if !ok {
			unmapped++
			continue
		}
		sep := ":"
		if linePrefix != "" {
			sep = ", " + linePrefix
		}
		clients[gvr] = append(clients[gvr], Client{Kind: kind, Name: fmt.Sprintf("%s%s%d (%s %s)", o.File, sep, o.Line, o.Kind, o.APIVersion)})
	}
	return unmapped
}
