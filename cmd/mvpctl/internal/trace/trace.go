// Package trace sets up klog for -v, as kubectl's -v: routing decisions from
// DecisionsLevel, client-go's own request logging from 6, every line cleaned of credentials.
package trace

import (
	"flag"
	"io"
	"os"
	"strconv"
	"strings"

	"k8s.io/klog/v2"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/process"
	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/route"
)

// DecisionsLevel is the -v from which every routing decision is logged. From 6 on,
// client-go logs every request it sends, as for kubectl (transport.DebugWrappers: 6 the
// method, URL, status and time; 7 the request headers; 8 the response headers too; 9 a curl
// line and the connection's timings), with the Authorization header masked.
const DecisionsLevel = 4

// Start sets klog's verbosity to verbosity (-v), before any client is built (client-go
// decides then whether to wrap its transport in its request logger). With -v, klog writes to
// errOut (mvpctl's own stderr) at once, each line cleaned as others' lines are
// (process.CleanForeign: known credentials and secret shapes redacted); without, klog writes
// to os.Stderr, which the stderr guard cleans and shows (cmd/mvpctl/internal/process).
func Start(verbosity int, errOut io.Writer) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	set := func(name, value string) {
		if err := fs.Set(name, value); err != nil {
			panic("klog flag " + name + ": " + err.Error()) // the names are klog's own
		}
	}
	set("v", strconv.Itoa(max(verbosity, 0)))
	if verbosity > 0 {
		set("logtostderr", "false")
		set("one_output", "true")       // each line once, not once per severity at or below its own
		set("stderrthreshold", "FATAL") // and not a second time to os.Stderr
		klog.SetOutput(cleanLines{errOut})
	} else {
		set("logtostderr", "true")
		klog.SetOutput(os.Stderr)
	}
	route.TraceDecision = nil
	if klog.V(DecisionsLevel).Enabled() {
		route.TraceDecision = func(request string, d route.Decision) {
			klog.V(DecisionsLevel).Infof("decision: %s on %s: %s", apiclient.OneLine(request), d.Server, apiclient.OneLine(d.Plain.Answer))
		}
	}
}

// cleanLines writes what klog writes, each line cleaned by process.CleanForeign (a leading
// tab, klog's indentation of a multi-line value, kept).
type cleanLines struct{ out io.Writer }

func (c cleanLines) Write(p []byte) (int, error) {
	var b strings.Builder
	for _, line := range strings.SplitAfter(string(p), "\n") {
		body, newline := strings.CutSuffix(line, "\n")
		if rest, ok := strings.CutPrefix(body, "\t"); ok {
			b.WriteByte('\t')
			body = rest
		}
		b.WriteString(process.CleanForeign(body))
		if newline {
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(c.out, b.String())
	return len(p), err
}
