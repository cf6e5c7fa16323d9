package main

import (
	"slices"
	"testing"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/kubeflags"
)

// TestSubcommandNames: the table newRootCmdFor builds from names each top-level command as
// its constructor does, and a command line naming one builds that one alone.
func TestSubcommandNames(t *testing.T) {
	g := &globalOptions{streams: Streams{}, configFlags: kubeflags.New()}
	var built []string
	for _, c := range newRootCmd(g).Commands() {
		built = append(built, c.Name())
	}
	table := []string{"completion"} // cobra's, added to the whole tree only
	for _, c := range subcommands {
		table = append(table, c.name)
	}
	slices.Sort(built) // cobra lists commands sorted
	if !slices.Equal(built, slices.Sorted(slices.Values(table))) {
		t.Fatalf("the whole tree has %v, the table %v", built, table)
	}
	for _, name := range table[1:] {
		g := &globalOptions{streams: Streams{}, configFlags: kubeflags.New()}
		cmds := newRootCmdFor(g, []string{"--context", "x", "-v", "6", "--insecure-skip-tls-verify", name, "--snapshot", "f"}).Commands()
		if len(cmds) != 1 || cmds[0].Name() != name {
			t.Errorf("the tree for %q has %d commands, want that one alone", name, len(cmds))
		}
	}
}

// cli.CommandName picks the command as cobra's Find does: flag values are skipped, a flag known
// to need no value is not given one, anything unclear names no command (the whole tree).
func TestCommandName(t *testing.T) {
	g := &globalOptions{streams: Streams{}, configFlags: kubeflags.New()}
	flags := newRootCmd(g).PersistentFlags()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"routes"}, "routes"},
		{[]string{"routes", "--snapshot", "f"}, "routes"},
		{[]string{"--kubeconfig", "routes", "explain"}, "explain"}, // "routes" is the kubeconfig's path
		{[]string{"--kubeconfig=k", "routes"}, "routes"},
		{[]string{"-s", "https://h", "probe"}, "probe"},
		{[]string{"-v", "4", "routes"}, "routes"},
		{[]string{"-v=4", "routes"}, "routes"},
		{[]string{"--insecure-skip-tls-verify", "routes"}, "routes"}, // a boolean: takes no value
		{[]string{"--unknown", "routes", "explain"}, "explain"},      // cobra's rule: unknown flags take one
		{[]string{"-h", "routes"}, ""},                               // help is not a persistent flag: -h takes "routes"
		{[]string{"--", "routes"}, ""},
		{[]string{"help", "routes"}, "help"},
	} {
		if got := cli.CommandName(tc.args, flags); got != tc.want {
			t.Errorf("commandName(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
