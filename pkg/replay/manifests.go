package replay

import (
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
	// Namespace and Name are its metadata's (either may be empty).
	Namespace, Name string
	// Template is the chart template a `# Source:` comment of rendered Helm output names
	// for its document ("" without one).
	Template string
}

// manifestReader reads manifests within the run's budget.
type manifestReader struct {
	objs   []ManifestObject
	budget *Budget
	// source names the input in errors: the flag it came from.
	source string
	// problems are the documents that could not be read (manifests_docs.go); skipped the
	// files of a directory that are not manifests; files the files read.
	problems []ManifestProblem
	skipped  []string
	files    int
	// template is the `# Source:` of the document being read, lineOffset the line of the
	// file before it.
	template   string
	lineOffset int
}

// ReadManifestSet reads path: a YAML or JSON file (multi-document), a directory (every .yaml,
// .yml and .json file under it, in lexical order; other files are skipped and named), or "-"
// for stdin (`helm template`, `kustomize build`). A `kind: List` (kubectl get -o yaml) is read
// item by item. A document that does not parse is a problem of the set, and reading goes on.
// It reads within a budget of its own (ReadManifestSetWithin).
func ReadManifestSet(path string, stdin io.Reader) (ManifestRead, error) {
	return ReadManifestSetWithin(path, stdin, NewBudget())
}

// ReadManifestSetWithin is ReadManifestSet within what is left of budget: at the budget it
// returns what was read before it and the budget's error (AsBudgetError); a file larger than
// what is left is refused before it is read.
func ReadManifestSetWithin(path string, stdin io.Reader, budget *Budget) (ManifestRead, error) {
	r := &manifestReader{source: "--manifests", budget: budget}
	set, err := r.readPath(path, stdin)
	set.Path = path
	return set, err
}

func (r *manifestReader) readPath(path string, stdin io.Reader) (ManifestRead, error) {
	if path == "-" {
		err := r.read(r.budget.Reader(stdin, "stdin"), "stdin")
		return r.result(), err
	}
	info, err := os.Stat(path)
	if err != nil {
		return ManifestRead{}, fmt.Errorf("--manifests %s: %w%s", path, err, staticPodHint(path))
	}
	if !info.IsDir() {
		if !info.Mode().IsRegular() {
			return ManifestRead{}, fmt.Errorf("--manifests %s: not a regular file or a directory (for standard input, use --manifests -)", path)
		}
		err := r.readFile(path)
		return r.result(), err
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
		default:
			if !d.IsDir() {
				r.skipped = append(r.skipped, p)
			}
		}
		return nil
	})
	if err != nil {
		return ManifestRead{}, fmt.Errorf("--manifests %s: %w", path, err)
	}
	sort.Strings(files)
	for _, f := range files {
		if err := r.readFile(f); err != nil {
			return r.result(), err
		}
	}
	return r.result(), nil
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

// read reads in (whose bytes the budget has taken, or takes as they are read) document by
// document (documents): a document that does not parse is a problem, not the end.
func (r *manifestReader) read(in io.Reader, name string) error {
	r.files++
	err := r.documents(in, name)
	if re, ok := err.(readError); ok {
		return fmt.Errorf("%s %s: %w", r.source, name, re.err)
	}
	return err // nil, the budget's, the run's context's
}

// object records n when it is an object with an apiVersion and a kind, and the items of a List.
func (r *manifestReader) object(n *yaml.Node, file string) error {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	obj := ManifestObject{Template: r.template}
	var items *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case k.Value == "apiVersion" && v.Kind == yaml.ScalarNode:
			obj.APIVersion, obj.Line = v.Value, k.Line+r.lineOffset
		case k.Value == "kind" && v.Kind == yaml.ScalarNode:
			obj.Kind = v.Value
		case (k.Value == "apiVersion" || k.Value == "kind") && v.Kind == yaml.MappingNode:
			// `apiVersion: {{ ... }}` parses as a flow mapping: an unrendered template.
			r.templateProblem(file, k.Line+r.lineOffset)
			return nil
		case k.Value == "metadata" && v.Kind == yaml.MappingNode:
			obj.Namespace, obj.Name = metadataName(v)
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
