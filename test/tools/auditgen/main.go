// Command auditgen writes a synthetic, real-shaped Kubernetes audit log (see
// test/fake/auditevents): go run ./test/tools/auditgen -n 1000000 -o /tmp/audit.log
package main

import (
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mvpctl/mvpctl/test/fake/auditevents"
)

func main() {
	var o auditevents.Options
	out := flag.String("o", "-", "output file (\"-\": stdout); a name ending in .gz is gzipped")
	flag.IntVar(&o.Requests, "n", 100000, "requests to log")
	flag.Uint64Var(&o.Seed, "seed", 1, "random seed: the same seed gives the same log")
	flag.BoolVar(&o.Stages, "stages", false, "log RequestReceived (and ResponseStarted) events too")
	flag.IntVar(&o.MalformedEvery, "malformed-every", 0, "inject a malformed line every N requests (0: none)")
	flag.BoolVar(&o.CRLF, "crlf", false, "end lines with CRLF")
	flag.BoolVar(&o.NoTrailingNewline, "no-trailing-newline", false, "leave the last line unterminated")
	flag.Parse()
	if err := run(*out, o); err != nil {
		fmt.Fprintln(os.Stderr, "auditgen:", err)
		os.Exit(1)
	}
}

func run(out string, o auditevents.Options) error {
	var w io.Writer = os.Stdout
	if out != "-" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	if strings.HasSuffix(out, ".gz") {
		gz := gzip.NewWriter(w)
		if err := auditevents.Write(gz, o); err != nil {
			return err
		}
		return gz.Close()
	}
	return auditevents.Write(w, o)
}
