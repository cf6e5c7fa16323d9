package replay

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Sources are the traffic files of a run, open: a request list, or audit logs replayed one
// after another. Close them when done.
type Sources struct {
	Readers []*Reader
	// Source names the files as given; Format is FormatRequests or FormatAuditLog.
	Source string
	Format string
}

// OpenSources opens a request list (requests, "" for none) or audit logs (each FILE or
// SERVER=FILE, SplitAuditLog; SERVER must be one of start's servers). Nothing given is no
// traffic (empty Sources).
func OpenSources(requests string, auditLogs []string, start *snapshot.Snapshot) (*Sources, error) {
	switch {
	case requests != "":
		tr, err := Open(requests, FormatRequests)
		if err != nil {
			return nil, err
		}
		return &Sources{Readers: []*Reader{tr}, Source: requests, Format: FormatRequests}, nil
	case len(auditLogs) > 0:
		s := &Sources{Source: strings.Join(auditLogs, ","), Format: FormatAuditLog}
		for _, v := range auditLogs {
			server, path, named := SplitAuditLog(v)
			if named && start.Find(server) == nil {
				s.Close()
				return nil, fmt.Errorf("--audit-log %q: no apiserver %q in the control plane (apiservers: %s)", v, server, strings.Join(start.ServerNames(), ", "))
			}
			tr, err := Open(path, FormatAuditLog)
			if err != nil {
				s.Close()
				return nil, err
			}
			tr.Server = server
			s.Readers = append(s.Readers, tr)
		}
		return s, nil
	}
	return &Sources{}, nil
}

// Close closes every reader.
func (s *Sources) Close() {
	for _, tr := range s.Readers {
		tr.Close()
	}
}

// SplitAuditLog reads an --audit-log value: SERVER=FILE when there is an '=' before any path
// separator, FILE otherwise (give a file whose name has an '=' as ./NAME).
func SplitAuditLog(v string) (server, path string, named bool) {
	i := strings.IndexByte(v, '=')
	if i < 0 || strings.ContainsAny(v[:i], `/\`) {
		return "", v, false
	}
	return v[:i], v[i+1:], true
}
