//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// budgetCases are the rows of docs/faults.md for the run's client-evidence budget: files past
// what is left of it are refused before they are read (sparse files of NULs, which would not
// parse if they were read), the source is said to be cut and the verdict partial (exit 2: the
// findings the example has are accepted with --ignore).
func budgetCases() []processCase {
	example, _ := filepath.Abs("../../examples/skew.yaml")
	sparse := func(t *testing.T, dir, name string, size int64) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, size); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cut := func(want string) func(t *testing.T, r processResult) {
		return func(t *testing.T, r processResult) {
			if !strings.Contains(r.stderr, "partial, exit 2") || !strings.Contains(r.stderr, want) {
				t.Errorf("stderr %q: want the verdict partial, with %q", r.stderr, want)
			}
		}
	}
	return []processCase{
		{fault: "--manifests: three files of 196 MiB", command: "preflight --to 1.37 --manifests A --manifests B --manifests C", exit: ExitIncomplete, within: 3 * time.Second,
			setup: func(t *testing.T, dir string) processRun {
				args := []string{"preflight", "--snapshot", example, "--to", "1.37", "--no-baseline", "--ignore", "MVP011"}
				for _, n := range []string{"a.yaml", "b.yaml", "c.yaml"} {
					args = append(args, "--manifests", sparse(t, dir, n, 196<<20))
				}
				return processRun{args: args}
			},
			check: cut("where the run reached its bound of 128 MiB over all sources): the manifests " + "")},
		{fault: "--manifests: one file of 283 MB", command: "preflight --to 1.37 --manifests FILE", exit: ExitIncomplete, within: 3 * time.Second,
			setup: func(t *testing.T, dir string) processRun {
				return processRun{args: []string{"preflight", "--snapshot", example, "--to", "1.37", "--no-baseline", "--ignore", "MVP011", "--manifests", sparse(t, dir, "big.yaml", 283_000_000)}}
			},
			check: cut("big.yaml, where the run reached its bound of 128 MiB")},
	}
}
