package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/kubeflags"
	"github.com/mvpctl/mvpctl/pkg/simulate"
)

var flagInText = regexp.MustCompile(`(^|[\s(,])(--[a-z][a-z-]*)`)

// TestNoKubeconfigHints: without a kubeconfig every command that needs a cluster says so in
// one line that names only flags the command has, and nothing of client-go's start-up
// ("try setting KUBERNETES_MASTER") comes before it.
func TestNoKubeconfigHints(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	for _, tc := range []struct {
		args []string
		want string // in the one line
	}{
		{[]string{"probe", "--snapshot", "../../examples/skew.yaml"}, "probe sends requests to the apiservers, even those of a --snapshot file"},
		{[]string{"probe"}, "point at one"},
		{[]string{"traffic", "--snapshot", "../../examples/skew.yaml"}, "traffic reads the /metrics of the apiservers"},
		{[]string{"snapshot"}, "point at one"},
		{[]string{"profiles", "record", "-f", "x.json"}, "point at one"},
		{[]string{"routes"}, "or pass --snapshot FILE"},
		{[]string{"explain", "jobs"}, "or pass --snapshot FILE"},
		{[]string{"discovery", "diff"}, "or pass --snapshot FILE"},
		{[]string{"simulate", "upgrade", "--to", "1.37"}, "or pass --snapshot FILE or --servers NAME=VERSION"},
		{[]string{"preflight", "--to", "1.37"}, "or pass --snapshot FILE or --servers NAME=VERSION"},
		{[]string{"watch"}, "point at one"},
		{[]string{"routes", "-w"}, "point at one"},
	} {
		name := strings.Join(tc.args, " ")
		_, stderr, code := run(t, tc.args...)
		if code != ExitError || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "error: no kubeconfig") || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and one line with %q", name, code, stderr, tc.want)
		}
		help, _, _ := run(t, append(tc.args[:len(tc.args):len(tc.args)], "--help")...)
		for _, m := range flagInText.FindAllStringSubmatch(stderr, -1) {
			if f := m[2]; f != "--kubeconfig" && f != "--server" && !regexp.MustCompile(`(^|[\s,])`+regexp.QuoteMeta(f)+`\b`).MatchString(help) {
				t.Errorf("%s: the error names %s, which the command does not have: %s", name, f, stderr)
			}
		}
	}
}

// TestLiveFlagsRefusedOffline: a flag that only a live read uses — a connection flag
// (--server, --context, ...) or a discovery flag (--endpoint, --timeout, ...) — is refused
// with the reason when no cluster is read (--snapshot, --servers), not silently ignored;
// probe and traffic send requests to a snapshot's servers, so the connection flags apply.
func TestLiveFlagsRefusedOffline(t *testing.T) {
	const skew = "../../examples/skew.yaml"
	for _, tc := range []struct {
		args []string
		want string // "" when the flags are taken
	}{
		{[]string{"routes", "--snapshot", skew, "--server", "https://127.0.0.1:1"}, "--server cannot be used with --snapshot: it applies to a read of the live cluster"},
		{[]string{"explain", "--snapshot", skew, "--context", "nosuch", "jobs"}, "--context cannot be used with --snapshot"},
		{[]string{"routes", "--snapshot", skew, "--token", "x", "--as", "me"}, "--as, --token cannot be used with --snapshot: they apply"},
		{[]string{"routes", "--snapshot", skew, "--endpoint", "https://127.0.0.1:1"}, "--endpoint cannot be used with --snapshot"},
		{[]string{"discovery", "diff", "--snapshot", skew, "--insecure-skip-tls-verify"}, "--insecure-skip-tls-verify cannot be used with --snapshot"},
		{[]string{"simulate", "upgrade", "--snapshot", skew, "--to", "1.37", "--kubeconfig", "x"}, "--kubeconfig cannot be used with --snapshot"},
		{[]string{"simulate", "upgrade", "--servers", "a=1.36,b=1.36", "--to", "1.37", "--context", "x"}, "--context cannot be used with --servers"},
		{[]string{"preflight", "--servers", "a=1.36,b=1.36", "--to", "1.37", "--timeout", "3s"}, "--timeout cannot be used with --servers"},
		{[]string{"routes", "--snapshot", skew, "-v", "1", "--no-color"}, ""},
	} {
		_, stderr, code := run(t, tc.args...)
		if tc.want == "" {
			if code == ExitError {
				t.Errorf("%v: exit 1: %s", tc.args, stderr)
			}
			continue
		}
		if code != ExitError || !strings.HasPrefix(stderr, "error: "+tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want exit 1 and one line %q", tc.args, code, stderr, tc.want)
		}
	}
	// probe with a snapshot sends requests with the kubeconfig's credentials: --context is
	// taken (here it names no context, and that is the error).
	_, stderr, _ := run(t, "probe", "--snapshot", skew, "--context", "nosuch")
	if strings.Contains(stderr, "cannot be used with --snapshot") {
		t.Errorf("probe --snapshot --context: refused: %s", stderr)
	}
}

// TestHelpPlaceholders: the value placeholder of every flag in --help (pflag takes the first
// `quoted` word of the usage) is one word: FILE, string, duration — never a phrase.
func TestHelpPlaceholders(t *testing.T) {
	for _, c := range allCommands() {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if name, _ := pflag.UnquoteUsage(f); strings.ContainsAny(name, " \t") {
				t.Errorf("%s --%s: placeholder %q in --help", c.CommandPath(), f.Name, name)
			}
		})
	}
}

// allCommands is every command of the tree, the root included.
func allCommands() []*cobra.Command {
	root := newRootCmd(&globalOptions{configFlags: kubeflags.New()})
	var cmds []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		cmds = append(cmds, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return cmds
}

// TestSimulateRunHelpListsSteps: simulate run --help lists every step action with an example,
// and each example runs.
func TestSimulateRunHelpListsSteps(t *testing.T) {
	help, _, code := run(t, "simulate", "run", "--help")
	if code != ExitOK {
		t.Fatalf("simulate run --help: exit %d", code)
	}
	words := strings.Join(strings.Fields(help), " ") // a description may wrap to the next line
	for _, k := range simulate.StepKinds {
		if !strings.Contains(help, "  "+k.Example+" ") || !strings.Contains(words, strings.Join(strings.Fields(k.Does), " ")) {
			t.Errorf("simulate run --help does not list %s (%s):\n%s", k.Action, k.Example, help)
		}
		if _, stderr, code := run(t, "simulate", "run", "--servers", "a=1.36,b=1.36", "--proxy=configured", "--step", k.Example); code == ExitError {
			t.Errorf("simulate run --step %s: exit 1: %s", k.Example, stderr)
		}
	}
}

// TestProfilesShowWithoutVersion: profiles show without VERSION lists what there is to show,
// as profiles list does, in every format.
func TestProfilesShowWithoutVersion(t *testing.T) {
	for _, format := range []string{"table", "name", "json"} {
		list, _, _ := run(t, "profiles", "list", "-o", format)
		show, stderr, code := run(t, "profiles", "show", "-o", format)
		if code != ExitOK || show != list || list == "" {
			t.Errorf("profiles show -o %s: exit %d (%s), %q; want profiles list's %q", format, code, stderr, show, list)
		}
	}
}

// TestCompletionShells: completion prints the script of each shell cobra supports; any other
// shell is a usage error (exit 1), as an unknown command is, not the help and exit 0.
func TestCompletionShells(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		if stdout, stderr, code := run(t, "completion", shell); code != ExitOK || !strings.Contains(stdout, "mvpctl") {
			t.Errorf("completion %s: exit %d, %d bytes: %s", shell, code, len(stdout), stderr)
		}
	}
	for _, shell := range []string{"tcsh", "ksh"} {
		stdout, stderr, code := run(t, "completion", shell)
		if code != ExitError || stdout != "" || !strings.Contains(stderr, `unknown command "`+shell+`" for "mvpctl completion"`) {
			t.Errorf("completion %s: exit %d, stdout %q, stderr %q; want exit 1 naming the shell", shell, code, stdout, stderr)
		}
	}
}

// TestTrafficJoinAttribution: preflight on the example's merged audit log does not print
// "unknown → unknown" rows; it says the requests could not be attributed to servers and why.
func TestTrafficJoinAttribution(t *testing.T) {
	stdout, _, _ := run(t, "preflight", "--servers", "a=1.36,b=1.36,c=1.36", "--proxy=configured", "--to", "1.37", "--audit-log", "../../examples/audit.log.gz")
	if strings.Contains(stdout, "unknown (merged log)   unknown (merged log)") || !strings.Contains(stdout, "not attributed to servers: an audit event does not name the server that wrote it") {
		t.Errorf("the join of a merged log:\n%s", stdout)
	}
}
