//go:build linux

package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkRoutesPeakRSS runs `routes --snapshot` of a ~100 MB snapshot, JSON and YAML, as its
// own process and reports its peak RSS (wait4's rusage) per byte of the file: the figure
// docs/performance.md's Memory section states (at most 3). The "-stdin" cases read the same
// file from standard input (`--snapshot -`), a pipe it cannot read again.
//
//	go test ./cmd/mvpctl -run '^$' -bench RoutesPeakRSS -benchtime 1x
func BenchmarkRoutesPeakRSS(b *testing.B) {
	bin := binary(b)
	dir := b.TempDir()
	for _, c := range []struct {
		name  string
		gvrs  string // gensnap's -gvrs for about 100 MB
		stdin bool
	}{{"json", "28000", false}, {"json-stdin", "", true}, {"yaml", "50000", false}, {"yaml-stdin", "", true}} {
		path := filepath.Join(dir, "s."+strings.TrimSuffix(c.name, "-stdin"))
		if c.gvrs != "" {
			gen := exec.Command("go", "run", "../../test/tools/gensnap", "-servers", "5", "-gvrs", c.gvrs, "-o", path)
			if out, err := gen.CombinedOutput(); err != nil {
				b.Fatalf("gensnap: %v\n%s", err, out)
			}
		}
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			var peak int64 // bytes
			for b.Loop() {
				cmd := exec.Command(bin, "routes", "--snapshot", path)
				if c.stdin {
					f, err := os.Open(path)
					if err != nil {
						b.Fatal(err)
					}
					// A pipe, not the file: a file on stdin is read as a file.
					cmd.Args[len(cmd.Args)-1], cmd.Stdin = "-", struct{ io.Reader }{f}
					defer f.Close()
				}
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

// BenchmarkHelmBudget runs `preflight --helm-releases` as its own process against a control
// plane whose Secrets are 40 Helm releases of 30 MiB of manifest each (TestHelmBudget: cut at
// the fifth, exit 2), and reports per run its CPU time and, over the runs, its peak RSS (both
// wait4's rusage, as /usr/bin/time -v reports them); ns/op is the wall time. A child's peak
// RSS starts at the benchmark's own (startMeasured), which holds the records: that is given
// too, after its garbage is returned, and a peak at or under it is the benchmark's. "sigterm" sends
// SIGTERM a second after the Secret list was served, while the records are read, and reports how
// long the process took to exit.
//
//	go test ./cmd/mvpctl -run '^$' -bench HelmBudget -benchtime 3x
func BenchmarkHelmBudget(b *testing.B) {
	bin := binary(b)
	listed := make(chan struct{}, 1)
	kc := helmBudgetCluster(b, func() {
		select {
		case listed <- struct{}{}:
		default:
		}
	})
	args := []string{"preflight", "--kubeconfig", kc, "--to", "1.37", "--helm-releases"}
	debug.FreeOSMemory()
	b.Run("read", func(b *testing.B) {
		var peak int64 // bytes
		var own float64
		var cpu time.Duration
		for b.Loop() {
			cmd := exec.Command(bin, args...)
			own = max(own, startMeasured(b, cmd))
			err := cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != ExitIncomplete {
				b.Fatalf("exit %d (%v), want %d", code, err, ExitIncomplete)
			}
			cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				peak = max(peak, ru.Maxrss<<10) // KiB on Linux
			}
		}
		b.ReportMetric(cpu.Seconds()/float64(b.N), "CPU-s/op")
		b.ReportMetric(float64(peak)/1e6, "peak-RSS-MB")
		b.ReportMetric(own*(1<<20)/1e6, "bench-own-RSS-MB")
	})
	b.Run("sigterm", func(b *testing.B) {
		var took time.Duration
		for b.Loop() {
			select {
			case <-listed:
			default:
			}
			cmd := exec.Command(bin, args...)
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			<-listed
			time.Sleep(time.Second)
			start := time.Now()
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
			took += time.Since(start)
			if code := cmd.ProcessState.ExitCode(); code != ExitTerminated {
				b.Fatalf("exit %d after SIGTERM, want %d", code, ExitTerminated)
			}
		}
		b.ReportMetric(took.Seconds()/float64(b.N), "s-to-exit/op")
	})
}
