package snapshot

import (
	"fmt"
	"strings"
)

// GVR names a group/version/resource. Group is "" for the core group.
type GVR struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
}

// GroupVersion returns "group/version", or "version" for the core group, as in apiVersion.
func (g GVR) GroupVersion() string {
	if g.Group == "" {
		return g.Version
	}
	return g.Group + "/" + g.Version
}

// String returns the apiVersion-style name followed by the resource: "batch/v1/jobs",
// "v1/pods" for the core group.
func (g GVR) String() string { return g.GroupVersion() + "/" + g.Resource }

// ParseGVR reads the form String writes. "v1/pods" is the core group.
func ParseGVR(s string) (GVR, error) {
	parts := strings.Split(s, "/")
	switch {
	case len(parts) == 2 && parts[0] != "" && parts[1] != "":
		return GVR{Version: parts[0], Resource: parts[1]}, nil
	case len(parts) == 3 && parts[0] != "" && parts[1] != "" && parts[2] != "":
		return GVR{Group: parts[0], Version: parts[1], Resource: parts[2]}, nil
	}
	return GVR{}, fmt.Errorf("%q is not a group/version/resource (want e.g. batch/v1/jobs or v1/pods)", s)
}

// GVR returns the resource's name.
func (r Resource) GVR() GVR { return GVR{Group: r.Group, Version: r.Version, Resource: r.Resource} }

// GroupVersion returns "group/version" (or "version" for core).
func (r Resource) GroupVersion() string { return r.GVR().GroupVersion() }

// Serves reports whether the server's own discovery lists gvr.
func (s *Server) Serves(gvr GVR) bool {
	for i := range s.Resources {
		if s.Resources[i].GVR() == gvr {
			return true
		}
	}
	return false
}

// Find returns the server named name, or nil.
func (s *Snapshot) Find(name string) *Server {
	for i := range s.Servers {
		if s.Servers[i].Name == name || (s.Servers[i].ID != "" && s.Servers[i].ID == name) {
			return &s.Servers[i]
		}
	}
	return nil
}

// Partial reports whether some server could not be read.
func (s *Snapshot) Partial() bool {
	for i := range s.Servers {
		if !s.Servers[i].Reachable {
			return true
		}
	}
	return false
}

// ServerNames lists the servers' names in snapshot order.
func (s *Snapshot) ServerNames() []string {
	names := make([]string, len(s.Servers))
	for i := range s.Servers {
		names[i] = s.Servers[i].Name
	}
	return names
}
