//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// BenchmarkRoutesPeakRSS runs `routes --snapshot` of a ~100 MB snapshot, JSON and YAML, as its
// own process and reports its peak RSS (wait4's rusage) per byte of the file: the figure
// docs/performance.md's Memory section states (at most 3).
//
//	go test ./cmd/mvpctl -run '^$' -bench RoutesPeakRSS -benchtime 1x
func BenchmarkRoutesPeakRSS(b *testing.B) {
	bin := binary(b)
	dir := b.TempDir()
	for _, c := range []struct {
		name string
		gvrs string // gensnap's -gvrs for about 100 MB
	}{{"json", "28000"}, {"yaml", "50000"}} {
		path := filepath.Join(dir, "s."+c.name)
		gen := exec.Command("go", "run", "../../test/tools/gensnap", "-servers", "5", "-gvrs", c.gvrs, "-o", path)
		if out, err := gen.CombinedOutput(); err != nil {
			b.Fatalf("gensnap: %v\n%s", err, out)
		}
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			var peak int64 // bytes
			for b.Loop() {
				cmd := exec.Command(bin, "routes", "--snapshot", path)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("routes: %v\n%.500s", err, out)
				}
				if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
					peak = max(peak, ru.Maxrss<<10) // KiB on Linux
				}
			}
			b.ReportMetric(float64(fi.Size())/1e6, "file-MB")
			b.ReportMetric(float64(peak)/1e6, "peak-RSS-MB")
			b.ReportMetric(float64(peak)/float64(fi.Size()), "peak-RSS/file-byte")
		})
	}
}
