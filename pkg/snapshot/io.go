package snapshot

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"
)

// LoadFile reads and validates a snapshot file (YAML or JSON). Errors name the file and, where
// there is one, the offending field.
func LoadFile(path string) (*Snapshot, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", path, unwrapPathError(err))
	}
	s, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", path, err)
	}
	return s, nil
}

// Load reads and validates a snapshot from r; name is used in errors ("-" for stdin).
func Load(r io.Reader, name string) (*Snapshot, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", name, err)
	}
	s, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", name, err)
	}
	return s, nil
}

// Decode parses YAML or JSON strictly (unknown fields are errors, so a typo is not silently
// dropped) and validates the result. gzip-compressed input is recognised by its magic bytes.
func Decode(data []byte) (*Snapshot, error) {
	if len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("bad gzip: %w", err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("bad gzip (truncated?): %w", err)
		}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("file is empty")
	}
	if trimmed := bytes.TrimSpace(data); trimmed[0] == '<' {
		return nil, errors.New("not a YAML or JSON document: it starts with '<' (an HTML or XML page?)")
	}
	var s Snapshot
	if err := yaml.UnmarshalStrict(data, &s); err != nil {
		return nil, decodeError(err)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// decodeError turns parser messages into one line; a truncated document is named as such.
func decodeError(err error) error {
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	// sigs.k8s.io/yaml stacks its stages' prefixes; the last part is the one that helps.
	for _, noise := range []string{"error converting YAML to JSON: ", "error unmarshaling JSON: ", "while decoding JSON: ", "json: "} {
		msg = strings.ReplaceAll(msg, noise, "")
	}
	if strings.HasPrefix(msg, "cannot unmarshal string into Go value") || strings.HasPrefix(msg, "cannot unmarshal array into Go value") {
		return errors.New("not a snapshot: the document is not a YAML or JSON object")
	}
	for _, hint := range []string{"unexpected end of JSON input", "did not find expected", "found unexpected end of stream", "could not find expected"} {
		if strings.Contains(msg, hint) {
			return fmt.Errorf("not a complete document (truncated?): %s", msg)
		}
	}
	return fmt.Errorf("cannot parse: %s", msg)
}

// Validate checks the invariants the router relies on. The first problem found is returned,
// naming its field path.
func (s *Snapshot) Validate() error {
	if s.APIVersion != APIVersion {
		return fmt.Errorf("apiVersion: got %q, want %q", s.APIVersion, APIVersion)
	}
	if s.Kind != Kind {
		return fmt.Errorf("kind: got %q, want %q", s.Kind, Kind)
	}
	if len(s.Servers) == 0 {
		return errors.New("servers: no servers listed")
	}
	names := map[string]int{}
	ids := map[string]int{}
	for i := range s.Servers {
		srv := &s.Servers[i]
		field := fmt.Sprintf("servers[%d]", i)
		if srv.Name == "" {
			return fmt.Errorf("%s.name: must be set", field)
		}
		if j, dup := names[srv.Name]; dup {
			return fmt.Errorf("%s.name: duplicate server %q (also servers[%d])", field, srv.Name, j)
		}
		names[srv.Name] = i
		if srv.ID != "" {
			if j, dup := ids[srv.ID]; dup {
				return fmt.Errorf("%s.id: duplicate server id %q (also servers[%d]); two apiservers with one hostname share an identity", field, srv.ID, j)
			}
			ids[srv.ID] = i
		}
		if srv.Reachable {
			if srv.Version == "" {
				return fmt.Errorf("%s (%s).version: must be set for a reachable server", field, srv.Name)
			}
			if _, err := ParseVersion(srv.Version); err != nil {
				return fmt.Errorf("%s (%s).version: %w", field, srv.Name, err)
			}
		} else if srv.Version != "" {
			if _, err := ParseVersion(srv.Version); err != nil {
				return fmt.Errorf("%s (%s).version: %w", field, srv.Name, err)
			}
		}
		if err := validateResources(srv.Resources, fmt.Sprintf("%s (%s).resources", field, srv.Name)); err != nil {
			return err
		}
		if err := validateResources(srv.PeerAggregated, fmt.Sprintf("%s (%s).peerAggregated", field, srv.Name)); err != nil {
			return err
		}
		if err := validateDocument(srv.APIs, fmt.Sprintf("%s (%s).apis", field, srv.Name)); err != nil {
			return err
		}
		if err := validateDocument(srv.DefaultAPIs, fmt.Sprintf("%s (%s).defaultAPIs", field, srv.Name)); err != nil {
			return err
		}
	}
	for i, sv := range s.Cluster.StorageVersions {
		if sv.Resource == "" {
			return fmt.Errorf("cluster.storageVersions[%d].resource: must be set", i)
		}
	}
	return nil
}

func validateResources(rs []Resource, field string) error {
	seen := map[GVR]bool{}
	for j, r := range rs {
		f := fmt.Sprintf("%s[%d]", field, j)
		if r.Resource == "" {
			return fmt.Errorf("%s.resource: must be set", f)
		}
		if r.Version == "" {
			return fmt.Errorf("%s.version: must be set (resource %q)", f, r.Resource)
		}
		if strings.Contains(r.Resource, "/") {
			return fmt.Errorf("%s.resource: %q is a subresource; list it under its resource's subresources", f, r.Resource)
		}
		switch r.Source {
		case "", SourceBuiltin, SourceCRD, SourceAggregated:
		default:
			return fmt.Errorf("%s.source: %q is not one of %s, %s, %s", f, r.Source, SourceBuiltin, SourceCRD, SourceAggregated)
		}
		if seen[r.GVR()] {
			return fmt.Errorf("%s: duplicate resource %s", f, r.GVR())
		}
		seen[r.GVR()] = true
	}
	return nil
}

// validateDocument checks a recorded discovery document, naming field in the error.
func validateDocument(d *DiscoveryDocument, field string) error {
	if err := d.Check(); err != nil {
		return fmt.Errorf("%s.%w", field, err)
	}
	return nil
}

// Check returns the first problem that makes d unusable for the discovery merge: every /apis
// group is named, once, and every version is named, once per group. The error starts with
// the offending field path (items[i]...).
func (d *DiscoveryDocument) Check() error {
	if d == nil {
		return nil
	}
	groups := map[string]int{}
	for i, g := range d.Items {
		f := fmt.Sprintf("items[%d]", i)
		if g.Name == "" {
			return fmt.Errorf("%s.metadata.name: must be set (the core group is never in /apis)", f)
		}
		if j, dup := groups[g.Name]; dup {
			return fmt.Errorf("%s: duplicate group %q (also items[%d])", f, g.Name, j)
		}
		groups[g.Name] = i
		versions := map[string]bool{}
		for j, v := range g.Versions {
			if v.Version == "" {
				return fmt.Errorf("%s.versions[%d].version: must be set (group %q)", f, j, g.Name)
			}
			if versions[v.Version] {
				return fmt.Errorf("%s.versions[%d]: duplicate version %q of group %q", f, j, v.Version, g.Name)
			}
			versions[v.Version] = true
		}
	}
	return nil
}

// Marshal encodes the snapshot as YAML or, when asJSON, indented JSON.
func (s *Snapshot) Marshal(asJSON bool) ([]byte, error) {
	if asJSON {
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return nil, err
		}
		return append(b, '\n'), nil
	}
	return yaml.Marshal(s)
}

// WriteFile writes the snapshot atomically: a temporary file in the same directory renamed
// over path, so a reader never sees a partial snapshot presented as whole.
func (s *Snapshot) WriteFile(path string, asJSON bool) error {
	data, err := s.Marshal(asJSON)
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mvpctl-snapshot-*")
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", path, unwrapPathError(err))
	}
	tempFiles.Store(tmp.Name(), true)
	defer tempFiles.Delete(tmp.Name())
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file 0600; a snapshot holds no credentials and is shared like
	// kubectl output.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("snapshot %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("snapshot %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("snapshot %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("snapshot %s: %w", path, unwrapPathError(err))
	}
	return nil
}

// tempFiles are the temporary files WriteFile is writing, for RemoveTempFiles.
var tempFiles sync.Map

// RemoveTempFiles removes the temporary files WriteFile has not finished with. A command
// interrupted by a signal calls it before exiting: the target file is never partial (it is
// renamed into place whole), and no .mvpctl-snapshot-* file is left beside it.
func RemoveTempFiles() {
	tempFiles.Range(func(name, _ any) bool {
		os.Remove(name.(string))
		tempFiles.Delete(name)
		return true
	})
}

// New returns an empty snapshot with apiVersion and kind set.
func New() *Snapshot { return &Snapshot{APIVersion: APIVersion, Kind: Kind} }

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
