package main

import (
	"encoding/json"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/replay"
	"sigs.k8s.io/yaml"
)

func TestSplitAuditLog(t *testing.T) {
	for _, c := range []struct {
		in, server, path string
		named            bool
	}{
		{"audit.log", "", "audit.log", false},
		{"kas-a=audit.log", "kas-a", "audit.log", true},
		{"kas-a=/var/log/a=b.log", "kas-a", "/var/log/a=b.log", true},
		{"./a=b.log", "", "./a=b.log", false},
		{"/var/log/a=b.log", "", "/var/log/a=b.log", false},
		{"kas-a=", "kas-a", "", true},
		{"=audit.log", "", "audit.log", true},
	} {
		if s, p, named := replay.SplitAuditLog(c.in); s != c.server || p != c.path || named != c.named {
			t.Errorf("splitAuditLog(%q) = %q, %q, %v; want %q, %q, %v", c.in, s, p, named, c.server, c.path, c.named)
		}
	}
}

// TestShippedAuditLogJoin: the shipped log, merged from two real servers, holds 8 proxied
// requests; it names no server, so neither does the join. The same in JSON and YAML.
func TestShippedAuditLogJoin(t *testing.T) {
	for _, format := range []string{"json", "yaml"} {
		out, errOut, code := run(t, "simulate", "upgrade", "--snapshot", "../../examples/skew.yaml", "--to", "1.37", "--audit-log", "../../examples/audit.log.gz", "-o", format)
		if code != ExitOK {
			t.Fatalf("-o %s: exit %d: %s", format, code, errOut)
		}
		var rep struct {
			Traffic struct {
				ProxiedCopies int64                 `json:"proxiedCopies"`
				Proxied       *replay.ProxiedReport `json:"proxied"`
			} `json:"traffic"`
		}
		var err error
		if format == "json" {
			err = json.Unmarshal([]byte(out), &rep)
		} else {
			err = yaml.Unmarshal([]byte(out), &rep)
		}
		if err != nil {
			t.Fatalf("-o %s: %v", format, err)
		}
		p := rep.Traffic.Proxied
		if p == nil || p.Total != 8 || p.Multiple != 0 || len(p.Requests) != 8 || rep.Traffic.ProxiedCopies != 8 {
			t.Fatalf("-o %s: join %+v, want 8 requests", format, p)
		}
		want := []replay.ProxiedPair{
			{From: replay.UnknownServer, To: replay.UnknownServer, Code: 200, ToCode: 200, Requests: 7},
			{From: replay.UnknownServer, To: replay.UnknownServer, Code: 404, ToCode: 404, Requests: 1},
		}
		if len(p.Pairs) != 2 || p.Pairs[0] != want[0] || p.Pairs[1] != want[1] {
			t.Errorf("-o %s: pairs %+v, want %+v", format, p.Pairs, want)
		}
		for _, r := range p.Requests {
			if r.Time == "" || r.Method != "GET" || r.From != replay.UnknownServer {
				t.Errorf("-o %s: request %+v", format, r)
			}
		}
	}
}
