package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// Exit codes, documented in the root command's help and docs/exit-codes.md.
const (
	ExitOK       = 0
	ExitError    = 1 // usage or input error
	ExitPartial  = 2 // a result was produced, but some server could not be read
	ExitWarnings = 2 // preflight: warnings only
	ExitFindings = 3 // findings that block (mismatch, 404/503 at a step)
)

const exitCodeHelp = `Exit codes:
  0  success
  1  usage or input error (bad flag, malformed snapshot, unparsable request)
  2  partial result: some apiserver could not be read (the result marks it)
  3  blocking findings (commands that check something say which)`

// Streams are the command's I/O, injected so commands run in-process in tests.
type Streams struct {
	In     io.Reader
	Out    io.Writer // results only
	ErrOut io.Writer // progress, warnings, errors
	// ErrIsTerminal enables progress lines and colour (never with NO_COLOR).
	ErrIsTerminal bool
}

// DefaultStreams are the process's stdin, stdout and stderr.
func DefaultStreams() Streams {
	return Streams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, ErrIsTerminal: isTerminal(os.Stderr)}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// exitError carries an exit code through cobra's error return.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withCode wraps err so Execute exits with code.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// globalOptions are shared by every command.
type globalOptions struct {
	streams     Streams
	configFlags *genericclioptions.ConfigFlags
	// clock is the time source (fixed in golden tests); nil means time.Now.
	clock func() time.Time
}

func (g *globalOptions) now() time.Time {
	if g.clock != nil {
		return g.clock().UTC()
	}
	return time.Now().UTC()
}

// NewRootCmd builds the command tree.
func NewRootCmd(streams Streams) *cobra.Command {
	return newRootCmd(&globalOptions{streams: streams, configFlags: genericclioptions.NewConfigFlags(true)})
}

func newRootCmd(g *globalOptions) *cobra.Command {
	root := &cobra.Command{
		Use:   "mvpctl",
		Short: "See and test how kube-apiservers route requests in a mixed-version control plane",
		Long: `mvpctl makes kube-apiserver's Mixed Version Proxy (KEP-4020, feature gate
UnknownVersionInteroperabilityProxy) visible: for every apiserver of a control plane it
records what that server serves by itself, predicts whether a request ends local, proxied
to a peer, 404 or 503, and explains each decision step by step.

` + exitCodeHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(g.streams.In)
	root.SetOut(g.streams.Out)
	root.SetErr(g.streams.ErrOut)
	g.configFlags.AddFlags(root.PersistentFlags())

	root.AddCommand(
		newSnapshotCmd(g),
		newRoutesCmd(g),
		newExplainCmd(g),
		newDiscoveryCmd(g),
		newProbeCmd(g),
		newSimulateCmd(g),
		newPreflightCmd(g),
		newProfilesCmd(g),
		newVersionCmd(g),
	)
	return root
}

// Execute runs the command line and returns the process exit code. Errors are printed once,
// on one line, prefixed "error: " as kubectl does.
func Execute(args []string, streams Streams) int {
	return execute(args, &globalOptions{streams: streams, configFlags: genericclioptions.NewConfigFlags(true)})
}

func execute(args []string, g *globalOptions) int {
	streams := g.streams
	root := newRootCmd(g)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	code := ExitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	prefix := "error"
	if code == ExitPartial {
		prefix = "warning" // the result was printed; it just does not cover every server
	}
	fmt.Fprintf(streams.ErrOut, "%s: %s\n", prefix, oneLine(err.Error()))
	return code
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
