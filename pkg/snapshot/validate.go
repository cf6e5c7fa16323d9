package snapshot

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mvpctl/mvpctl/internal/parallel"
)

// This file checks the invariants the router relies on; text.go checks the strings.

// Validate checks the invariants the router relies on. The first problem found is returned,
// naming its field path.
func (s *Snapshot) Validate() error { return s.validate(false) }

// validate is Validate; textSafe says every string is known to be safe text (Decode learnt it
// from the generated decoder or from plainInput), so the walk over every string (checkText)
// is skipped.
func (s *Snapshot) validate(textSafe bool) error {
	if err := s.validateHeader(); err != nil {
		return err
	}
	if err := s.checkRequestCountRows(); err != nil {
		return err
	}
	// The checks of each server's lists, documents and strings are the long ones (a CRD-heavy
	// snapshot lists tens of thousands of resources per server): done side by side first; the
	// loop below reports the first error in the order the checks have always run.
	contents := make([]error, len(s.Servers))
	badText := make([]bool, len(s.Servers))
	parallel.Each(len(s.Servers), func(i int) {
		srv := &s.Servers[i]
		contents[i] = srv.validateContents(fmt.Sprintf("servers[%d] (%s)", i, srv.Name))
		badText[i] = !textSafe && checkText(srv) != nil
	})
	names := map[string]int{}
	ids := map[string]int{}
	for i := range s.Servers {
		if err := s.validateServer(i, names, ids); err != nil {
			return err
		}
		if contents[i] != nil {
			return contents[i]
		}
	}
	if err := validateCluster(&s.Cluster); err != nil {
		return err
	}
	if err := s.validateLB(); err != nil {
		return err
	}
	if textSafe {
		return nil
	}
	if slices.Contains(badText, true) {
		return checkText(s) // the whole walk, for the error's full path
	}
	rest := *s
	rest.Servers = nil
	return checkText(&rest)
}

// validateHeader checks the document's apiVersion and kind, and that it lists a server.
func (s *Snapshot) validateHeader() error {
	if s.APIVersion != APIVersion {
		if s.APIVersion == APIVersionV1Alpha1 {
			// Decode converts files; an in-memory snapshot is always the current version.
			return fmt.Errorf("apiVersion: got %q, want %q (Decode converts %s files)", s.APIVersion, APIVersion, APIVersionV1Alpha1)
		}
		return fmt.Errorf("apiVersion: got %q, want %q (or %s, converted on read)", s.APIVersion, APIVersion, APIVersionV1Alpha1)
	}
	if s.Kind != Kind {
		return fmt.Errorf("kind: got %q, want %q", s.Kind, Kind)
	}
	if len(s.Servers) == 0 {
		return errors.New("servers: no servers listed")
	}
	return nil
}

// validateServer checks server i's name (set, well formed, not another's), its ID (not
// another's), and its versions; names and ids hold the servers checked before, by index.
func (s *Snapshot) validateServer(i int, names, ids map[string]int) error {
	srv := &s.Servers[i]
	field := fmt.Sprintf("servers[%d]", i)
	if srv.Name == "" {
		return fmt.Errorf("%s.name: must be set", field)
	}
	if err := checkServerName(srv.Name, field+".name"); err != nil {
		return err
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
	if srv.Reachable && srv.Version == "" {
		return fmt.Errorf("%s (%s).version: must be set for a reachable server", field, srv.Name)
	}
	if err := checkVersion(srv.Version, fmt.Sprintf("%s (%s).version", field, srv.Name)); err != nil {
		return err
	}
	return checkVersion(srv.EmulatedVersion, fmt.Sprintf("%s (%s).emulatedVersion", field, srv.Name))
}

// validateCluster checks the cluster's StorageVersions and APIServices name what they are about,
// and that its identity-lease record does not contradict itself.
func validateCluster(c *Cluster) error {
	for i, sv := range c.StorageVersions {
		if sv.Resource == "" {
			return fmt.Errorf("cluster.storageVersions[%d].resource: must be set", i)
		}
	}
	for i, a := range c.APIServices {
		switch {
		case a.Name == "" || a.Version == "":
			return fmt.Errorf("cluster.apiServices[%d]: name and version must be set", i)
		case a.Service != nil && (a.Service.Name == "" || a.Service.Namespace == ""):
			return fmt.Errorf("cluster.apiServices[%d] (%s).service: namespace and name must be set", i, a.Name)
		}
	}
	if err := validateCustomResourceDefinitions(c.CustomResourceDefinitions); err != nil {
		return err
	}
	if l := c.IdentityLeases; l != nil && l.Listed && l.Error != "" {
		return fmt.Errorf("cluster.identityLeases: listed, with an error (%q): an error says they were not listed", l.Error)
	}
	return nil
}

// validateContents checks a server's resource lists, recorded documents and core document;
// field names the server in errors ("servers[0] (kas-a)").
func (srv *Server) validateContents(field string) error {
	if err := validateResources(srv.Resources, field+".resources"); err != nil {
		return err
	}
	if err := validateResources(srv.PeerAggregated, field+".peerAggregated"); err != nil {
		return err
	}
	if err := validateDocument(srv.APIs, field+".apis"); err != nil {
		return err
	}
	if err := validateDocument(srv.DefaultAPIs, field+".defaultAPIs"); err != nil {
		return err
	}
	if err := srv.CoreAPI.CheckCore(); err != nil {
		return fmt.Errorf("%s.coreAPI.%w", field, err)
	}
	return nil
}

// lazyField prints as "field[index]": formatted only when an error is, not once per resource.
type lazyField struct {
	field string
	index int
}

func (f lazyField) String() string { return fmt.Sprintf("%s[%d]", f.field, f.index) }

func validateResources(rs []Resource, field string) error {
	seen := newFirstIndex(len(rs))
	for j := range rs {
		r := &rs[j]
		f := lazyField{field, j}
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
		if _, dup := seen.addResource(rs, j); dup {
			return fmt.Errorf("%s: duplicate resource %s", f, r.GVR())
		}
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
	groups := newFirstIndex(len(d.Items))
	for i := range d.Items {
		g := &d.Items[i]
		if g.Name == "" {
			return fmt.Errorf("items[%d].metadata.name: must be set (the core group is never in /apis)", i)
		}
		if j, dup := groups.addString(i, g.Name, func(j int) string { return d.Items[j].Name }); dup {
			return fmt.Errorf("items[%d]: duplicate group %q (also items[%d])", i, g.Name, j)
		}
		versions := newFirstIndex(len(g.Versions))
		for j := range g.Versions {
			v := g.Versions[j].Version
			if v == "" {
				return fmt.Errorf("items[%d].versions[%d].version: must be set (group %q)", i, j, g.Name)
			}
			if _, dup := versions.addString(j, v, func(k int) string { return g.Versions[k].Version }); dup {
				return fmt.Errorf("items[%d].versions[%d]: duplicate version %q of group %q", i, j, v, g.Name)
			}
		}
	}
	return nil
}

// CheckCore is Check for a server's /api (core group) document: its only group is the core
// group, and every version is named, once.
func (d *DiscoveryDocument) CheckCore() error {
	if d == nil {
		return nil
	}
	versions := map[string]bool{}
	for i, g := range d.Items {
		if g.Name != "" {
			return fmt.Errorf("items[%d].metadata.name: %q in /api, which holds only the core group", i, g.Name)
		}
		for j, v := range g.Versions {
			if v.Version == "" {
				return fmt.Errorf("items[%d].versions[%d].version: must be set", i, j)
			}
			if versions[v.Version] {
				return fmt.Errorf("items[%d].versions[%d]: duplicate version %q of the core group", i, j, v.Version)
			}
			versions[v.Version] = true
		}
	}
	return nil
}
