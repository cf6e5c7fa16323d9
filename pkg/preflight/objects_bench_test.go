package preflight

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/lifecycle"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// BenchmarkReadAndJudge100k reads 100,000 objects (a sixth of them of removed or misspelt
// APIs) from one file and judges each against a 1.36 start and a 1.37 target.
func BenchmarkReadAndJudge100k(b *testing.B) {
	kinds := []string{"apps/v1 Deployment", "v1 ConfigMap", "extensions/v1beta1 Ingress", "batch/v1 CronJob", "apps/v1beat1 Deployment", "cert-manager.io/v1 Certificate"}
	var sb strings.Builder
	for i := 0; i < 100_000; i++ {
		av, kind, _ := strings.Cut(kinds[i%len(kinds)], " ")
		fmt.Fprintf(&sb, "---\napiVersion: %s\nkind: %s\nmetadata:\n  name: o%d\n  namespace: ns\n", av, kind, i)
	}
	path := filepath.Join(b.TempDir(), "objects.yaml")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	var st []stage
	for _, v := range []string{"1.36", "1.37"} {
		p, err := profile.Lookup(v)
		if err != nil {
			b.Fatal(err)
		}
		srv := p.Server
		srv.Resources = p.Resources
		st = append(st, stageOf(v, &snapshot.Snapshot{Servers: []snapshot.Server{srv}}))
	}
	known := newKnownAPIs(lifecycle.MustLoad(), st, snapshot.Cluster{})
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		set, err := replay.ReadManifestSet(path, nil)
		if err != nil || len(set.Objects) != 100_000 {
			b.Fatalf("%d objects, %v", len(set.Objects), err)
		}
		for _, o := range set.Objects {
			if judge(o, path, st, known).Verdict == "" {
				b.Fatal("no verdict")
			}
		}
	}
}
