package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/kubeflags"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/process"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/trace"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// globalOptions are shared by every command.
type globalOptions struct {
	streams     Streams
	configFlags *kubeflags.Flags
	// clock is the time source (fixed in golden tests); nil means time.Now.
	clock func() time.Time
	// argv0 is the name the binary was run by: as kubectl-mvp it is a kubectl plugin (cli.Binary).
	argv0 string
	// warnings are those already printed, each said once.
	warnings cli.Warnings
	// ctx ends on the first SIGINT or SIGTERM (process.HandleSignals); nil means never.
	ctx context.Context
	// verbosity is -v, klog's: 4 and up log every decision, 6 and up every request (cmd/mvpctl/internal/trace).
	verbosity int
	// noColor is --no-color (color.go).
	noColor bool
}

// warn prints a warning on stderr, once per run.
func (g *globalOptions) warn(msg string) { g.warnings.Say(g.streams.ErrOut, msg) }

// warnLoweredTrust warns when the kubeconfig lowers trust (cli.Env.WarnLoweredTrust).
func (g *globalOptions) warnLoweredTrust(cfgs ...*rest.Config) { g.env().WarnLoweredTrust(cfgs...) }

// env is what the shared plumbing (cmd/mvpctl/internal/cli) needs of the process: its streams as
// they are now, the connection flags, and warn.
func (g *globalOptions) env() cli.Env {
	return cli.Env{In: g.streams.In, ErrOut: g.streams.ErrOut, ErrIsTerminal: g.streams.ErrIsTerminal, ConfigFlags: g.configFlags, Warn: g.warn}
}

func (g *globalOptions) now() time.Time {
	if g.clock != nil {
		return g.clock().UTC()
	}
	return time.Now().UTC()
}

type subcommand struct {
	name  string
	build func(*globalOptions) *cobra.Command
}

// subcommands are mvpctl's top-level commands, each by the name
// its constructor gives it (TestSubcommandNames keeps the two equal).
var subcommands = []subcommand{
	{"snapshot", newSnapshotCmd},
	{"routes", newRoutesCmd},
	{"watch", newWatchCmd},
	{"explain", newExplainCmd},
	{"discovery", newDiscoveryCmd},
	{"probe", newProbeCmd},
	{"traffic", newTrafficCmd},
	{"simulate", newSimulateCmd},
	{"preflight", newPreflightCmd},
	{"profiles", newProfilesCmd},
	{"apis", newAPIsCmd},
	{"version", newVersionCmd},
	{"options", newOptionsCmd},
	{"exit-codes", func(*globalOptions) *cobra.Command { return newExitCodesTopic() }},
}

// newRootCmd builds the whole command tree.
func newRootCmd(g *globalOptions) *cobra.Command { return newRootCmdFor(g, nil) }

// newRootCmdFor builds the command tree that args run: the root with only the top-level
// command args name, when they name one, else the whole tree (help, completion, a mistyped
// command that cobra suggests a name for). Building every command's flags is most of what
// building the tree costs, and the tree is built at every start (docs/performance.md).
func newRootCmdFor(g *globalOptions, args []string) *cobra.Command {
	root := &cobra.Command{
		Use:   "mvpctl",
		Short: "See and test how kube-apiservers route requests in a mixed-version control plane",
		Long: `mvpctl makes kube-apiserver's Mixed Version Proxy (KEP-4020, feature gate
UnknownVersionInteroperabilityProxy) visible: for every apiserver of a control plane it
records what that server serves by itself, predicts whether a request ends local, proxied
to a peer, 404 or 503, and explains each decision step by step.

` + exitCodeSummary,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(g.streams.In)
	root.SetOut(g.streams.Out)
	root.SetErr(g.streams.ErrOut)
	root.SetUsageFunc(cli.WriteUsage) // global flags in mvpctl options (options.go)
	root.SetFlagErrorFunc(cli.FlagError)
	g.configFlags.AddFlags(root.PersistentFlags())
	addColorFlag(root.PersistentFlags(), g)
	root.PersistentFlags().IntVarP(&g.verbosity, "v", "v", 0, "klog verbosity, as kubectl's: 4 logs every routing decision, 6 every request sent too (method, URL, status, time), 7-9 client-go's headers and timings (Authorization masked)")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		trace.Start(g.verbosity, g.streams.ErrOut)
		return cli.CheckNamespaceFlag(cmd)
	}

	name := cli.CommandName(args, root.PersistentFlags())
	only := slices.ContainsFunc(subcommands, func(c subcommand) bool { return c.name == name })
	// cobra adds its completion command (a subcommand per shell, each with its flags) at every
	// Execute unless told not to; a command line that names one of mvpctl's commands cannot run
	// it, so it is added only to the whole tree (`mvpctl completion bash`, `mvpctl __complete
	// ...`, help).
	root.CompletionOptions.DisableDefaultCmd = only
	for _, c := range subcommands {
		if !only || c.name == name {
			root.AddCommand(c.build(g))
		}
	}
	if !only {
		// cobra's completion command, added now rather than at Execute, so that an unknown
		// shell (mvpctl completion tcsh) is a usage error, not its help and exit 0.
		root.InitDefaultCompletionCmd(args...)
		if c, _, err := root.Find([]string{"completion"}); err == nil && c.Name() == "completion" {
			cli.CommandGroup(c)
		}
	}
	cli.Binary(g.argv0).AsKubectlPlugin(root)
	fitHelp(root, g)
	return root
}

// Execute runs the command line and returns the process exit code. Errors are printed once,
// on one line, prefixed "error: " as kubectl does.
func Execute(args []string, streams Streams) int {
	g := &globalOptions{streams: streams, configFlags: kubeflags.New(), argv0: os.Args[0]}
	if selfContained(g.argv0, args) {
		return execute(args, g)
	}
	ctx, interrupted := process.HandleSignals(g.streams.ErrOut, snapshot.RemoveTempFiles)
	g.ctx = ctx
	code := execute(args, g)
	if c, ok := interrupted(); ok {
		return c
	}
	return code
}

func execute(args []string, g *globalOptions) int {
	// Every byte mvpctl writes passes output.Guard: text from a cluster, a log or a file
	// reaches the terminal as text, whichever printer wrote it.
	g.streams.Out = output.Guard(output.Terminal(g.streams.Out, g.streams.Width), g.color)
	g.streams.ErrOut = output.Guard(g.streams.ErrOut, nil)
	streams := g.streams
	args = cli.Binary(g.argv0).Args(args)
	root := newRootCmdFor(g, args)
	if cli.CompletionRequest(args) {
		cli.RegisterCompletions(root, g.configFlags)
	}
	root.SetArgs(args)
	ctx := g.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	err := root.ExecuteContext(ctx)
	code := exitCode(err)
	if code == ExitOK {
		return ExitOK
	}
	prefix := "error"
	if code == ExitIncomplete {
		prefix = "warning" // the result was printed, with a caveat
	}
	fmt.Fprintf(streams.ErrOut, "%s: %s\n", prefix, oneLine(cli.Binary(g.argv0).DisplayText(err.Error())))
	return code
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
