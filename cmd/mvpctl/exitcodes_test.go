package main

import (
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/kubeflags"
)

// docs/exit-codes.md carries the table exitcodes_doc.go documents, so they cannot drift apart.
func TestExitCodesDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/exit-codes.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := exitCodesMarkdown(); !strings.Contains(string(doc), want) {
		t.Errorf("docs/exit-codes.md does not hold the table of cmd/mvpctl/exitcodes_doc.go; put this in it:\n%s", want)
	}
}

func TestHelpExitCodes(t *testing.T) {
	for _, args := range [][]string{{"help", "exit-codes"}, {"exit-codes"}} {
		out, errOut, code := run(t, args...)
		if code != ExitOK || errOut != "" || out != exitCodesText() {
			t.Errorf("%v: exit %d, stderr %q, stdout\n%s", args, code, errOut, out)
		}
	}
}

// Every command that prints a result has its exit codes documented, and every documented
// command exists.
func TestExitCodeTableCoversCommands(t *testing.T) {
	root := newRootCmd(&globalOptions{streams: Streams{}, configFlags: kubeflags.New()})
	documented := map[string]bool{}
	for _, r := range exitCodeTable {
		for _, c := range strings.Split(r.command, ", ") {
			documented[c] = true
			if found, rest, err := root.Find(strings.Fields(c)); err != nil || len(rest) > 0 || found.CommandPath() != "mvpctl "+c {
				t.Errorf("exit codes documented for %q, which is no command", c)
			}
		}
	}
	var visit func(*cobra.Command)
	visit = func(c *cobra.Command) {
		if c.HasSubCommands() {
			for _, sub := range c.Commands() {
				visit(sub)
			}
			return
		}
		name := strings.TrimPrefix(c.CommandPath(), "mvpctl ")
		if c.Runnable() && name != "help" && !strings.HasPrefix(name, "completion") && !documented[name] {
			t.Errorf("no exit codes documented for %q", name)
		}
	}
	visit(root)
}

// A command group rejects an unknown subcommand as the root command does: exit 1, one line,
// with cobra's suggestion. Before, simulate and profiles printed their help and exited 0.
func TestUnknownSubcommand(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "upgrad"}, `error: unknown command "upgrad" for "mvpctl simulate" Did you mean this? upgrade` + "\n"},
		{[]string{"profiles", "lst"}, `error: unknown command "lst" for "mvpctl profiles" Did you mean this? list` + "\n"},
		{[]string{"discovery", "expectd"}, `error: unknown command "expectd" for "mvpctl discovery" Did you mean this? expected` + "\n"},
		{[]string{"discovery", "zzz"}, `error: unknown command "zzz" for "mvpctl discovery"` + "\n"},
		{[]string{"snapshto"}, `error: unknown command "snapshto" for "mvpctl" Did you mean this? snapshot` + "\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := run(t, tt.args...)
			if code != ExitError || out != "" || errOut != tt.want {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, errOut, tt.want)
			}
		})
	}
}

// A command group without a subcommand prints its help and succeeds.
func TestCommandGroupHelp(t *testing.T) {
	for _, group := range []string{"simulate", "profiles", "discovery"} {
		out, errOut, code := run(t, group)
		if code != ExitOK || errOut != "" || !strings.Contains(out, "Available Commands:") {
			t.Errorf("%s: exit %d, stderr %q, stdout %q", group, code, errOut, out)
		}
	}
}

// -o and --no-headers are the same flags in every command that prints a result, and an -o
// value the command does not support gives the same error everywhere.
func TestOutputFlagsEverywhere(t *testing.T) {
	tests := []struct {
		args    []string
		formats string
	}{
		{[]string{"snapshot"}, "yaml|json"},
		{[]string{"routes", "--snapshot", skew}, "table|wide|name|jsonpath=TEMPLATE|csv|json|yaml|mermaid|dot|text"},
		{[]string{"explain", "--snapshot", skew, "GET", "/api/v1/pods"}, "text|table|wide|name|jsonpath=TEMPLATE|csv|json|yaml|mermaid|dot"},
		{[]string{"discovery", "expected", "--snapshot", skew}, "table|wide|name|jsonpath=TEMPLATE|csv|json|yaml"},
		{[]string{"discovery", "diff", "--snapshot", skew}, "table|wide|name|jsonpath=TEMPLATE|csv|json|yaml"},
		{[]string{"probe", "--snapshot", skew}, "table|wide|name|jsonpath=TEMPLATE|csv|json|yaml"},
		{[]string{"simulate", "upgrade", "--servers", "a=1.36", "--to", "1.37"}, "table|wide|name|jsonpath=TEMPLATE|csv|json|yaml|mermaid|dot"},
		{[]string{"simulate", "run", "--servers", "a=1.36"}, "table|wide|name|jsonpath=TEMPLATE|csv|json|yaml|mermaid|dot"},
		{[]string{"preflight", "--servers", "a=1.36", "--to", "1.37"}, "table|wide|name|jsonpath=TEMPLATE|csv|json|yaml|junit|markdown|mermaid|dot"},
		{[]string{"profiles", "list"}, "table|wide|name|jsonpath=TEMPLATE|csv|json|yaml"},
		{[]string{"profiles", "show", "1.36"}, "table|wide|name|jsonpath=TEMPLATE|csv|json|yaml"},
		{[]string{"watch"}, "text|json|table|wide"},
		{[]string{"traffic", "--snapshot", skew}, "table|wide|name|jsonpath=TEMPLATE|csv|json|yaml"},
		{[]string{"version"}, "text|json|yaml"},
	}
	for _, tt := range tests {
		command := "mvpctl " + strings.Join(tt.args, " ")
		if i := strings.Index(command, " -"); i > 0 {
			command = command[:i]
		}
		if i := strings.Index(command, " 1.36"); i > 0 {
			command = command[:i]
		}
		t.Run(command, func(t *testing.T) {
			out, errOut, code := run(t, append(tt.args, "--no-headers", "-o", "xml")...)
			want := `error: unknown output format "xml" for "` + command + `": want one of ` + tt.formats + "\n"
			if code != ExitError || out != "" || errOut != want {
				t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
			}
		})
	}
}
