package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/test/fake/planes"
)

// OpenSources opens a request list or audit logs, each log's SERVER one of the start's.
func TestOpenSources(t *testing.T) {
	dir := t.TempDir()
	reqs := filepath.Join(dir, "reqs.txt")
	log := filepath.Join(dir, "audit.log")
	for _, f := range []string{reqs, log} {
		if err := os.WriteFile(f, []byte("GET /api/v1/pods\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	start := planes.Three(t, "1.36")
	tests := []struct {
		name      string
		requests  string
		auditLogs []string
		readers   int
		servers   string // each reader's Server
		source    string
		format    string
		err       string
	}{
		{name: "none"},
		{name: "a request list", requests: reqs, readers: 1, servers: "", source: reqs, format: FormatRequests},
		{name: "audit logs", auditLogs: []string{"a=" + log, log}, readers: 2, servers: "a,", source: "a=" + log + "," + log, format: FormatAuditLog},
		{name: "an unknown server", auditLogs: []string{log, "z=" + log}, err: `--audit-log "z=` + log + `": no apiserver "z" in the control plane (apiservers: a, b, c)`},
		{name: "a missing file", auditLogs: []string{filepath.Join(dir, "none.log")}, err: "none.log"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := OpenSources(tc.requests, tc.auditLogs, start)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var servers []string
			for _, r := range s.Readers {
				servers = append(servers, r.Server)
			}
			if len(s.Readers) != tc.readers || strings.Join(servers, ",") != tc.servers || s.Source != tc.source || s.Format != tc.format {
				t.Errorf("got %d reader(s) of %q, source %q, format %q; want %d of %q, %q, %q",
					len(s.Readers), servers, s.Source, s.Format, tc.readers, tc.servers, tc.source, tc.format)
			}
		})
	}
}
