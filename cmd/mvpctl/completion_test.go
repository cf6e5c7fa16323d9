package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/kubeflags"
)

func TestCompletion(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "config")
	err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters:
- {name: c1, cluster: {server: "https://192.0.2.1:6443"}}
contexts:
- {name: prod, context: {cluster: c1, user: u1}}
- {name: dev, context: {cluster: c1, user: u1}}
users:
- {name: u1, user: {token: x}}
current-context: prod
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	const noFile = ":4" // ShellCompDirectiveNoFileComp
	profiles := "v1.33.13\tKubernetes 1.33 profile, 61 resources\nv1.34.4\tKubernetes 1.34 profile, 66 resources\n" +
		"v1.35.4\tKubernetes 1.35 profile, 66 resources\nv1.36.3\tKubernetes 1.36 profile, 68 resources\n" +
		"v1.37.2\tKubernetes 1.37 profile, 72 resources\n" + "v1.38.0\tKubernetes 1.38 provisional profile, 72 resources\n" + noFile + "\n"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"explain", "--snapshot", "../../examples/skew.yaml", "--apiserver", ""}, "kas-a\tv1.37.1\nkas-b\tv1.36.3\n" + noFile + "\n"},
		{[]string{"explain", "--snapshot", skew, "--apiserver", "kas-"}, "kas-a\tv1.37.1\nkas-b\tv1.36.3\nkas-c\tv1.36.3 unreachable\n" + noFile + "\n"},
		{[]string{"probe", "--snapshot", skew, "--apiserver", "kas-a", "--apiserver", "kas-c"}, "kas-c\tv1.36.3 unreachable\n" + noFile + "\n"},
		{[]string{"discovery", "diff", "--snapshot", skew, "--apiserver", "kas-b"}, "kas-b\tv1.36.3\n" + noFile + "\n"},
		// No snapshot file: nothing, and never the cluster.
		{[]string{"explain", "--server", "https://192.0.2.1:6443", "--apiserver", ""}, noFile + "\n"},
		{[]string{"explain", "--snapshot", "-", "--apiserver", ""}, noFile + "\n"},
		{[]string{"explain", "--snapshot", "testdata/does-not-exist.yaml", "--apiserver", ""}, noFile + "\n"},
		{[]string{"explain", "-o", ""}, "text\ntable\nwide\nname\njsonpath=TEMPLATE\ncsv\njson\nyaml\nmermaid\ndot\n" + noFile + "\n"},
		{[]string{"routes", "-o", "w"}, "wide\n" + noFile + "\n"},
		{[]string{"version", "--output", ""}, "text\njson\nyaml\n" + noFile + "\n"},
		{[]string{"simulate", "upgrade", "--to", ""}, profiles},
		{[]string{"preflight", "--to", "1.36"}, "1.36.3\tKubernetes 1.36 profile, 68 resources\n" + noFile + "\n"},
		{[]string{"profiles", "show", ""}, profiles},
		{[]string{"profiles", "show", "1.34", ""}, noFile + "\n"},
		{[]string{"preflight", "--fail-on", ""}, "warning\nblocking\nnever\n" + noFile + "\n"},
		{[]string{"routes", "--kubeconfig", kubeconfig, "--context", ""}, "dev\tc1\nprod\tc1\n" + noFile + "\n"},
		{[]string{"--kubeconfig", kubeconfig, "snapshot", "--contexts", "prod,"}, "prod,dev\tc1\nprod,prod\tc1\n" + noFile + "\n"},
		{[]string{"routes", "--kubeconfig", kubeconfig, "--cluster", ""}, "c1\thttps://192.0.2.1:6443\n" + noFile + "\n"},
		{[]string{"routes", "--snapshot", ""}, "yaml\nyml\njson\n:8\n"}, // ShellCompDirectiveFilterFileExt
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := run(t, append([]string{"__complete"}, tt.args...)...)
			if code != ExitOK || out != tt.want {
				t.Errorf("code %d, stderr %q\n--- got\n%s--- want\n%s", code, errOut, out, tt.want)
			}
		})
	}
	// kubectl runs kubectl_complete-mvp ARGS... to complete `kubectl mvp ARGS...`: a copy of or
	// a symlink to the binary under that name completes as __complete does.
	out, _, code := runAs(t, "/home/u/bin/kubectl_complete-mvp", "profiles", "show", "v1.37")
	if want := "v1.37.2\tKubernetes 1.37 profile, 72 resources\n" + noFile + "\n"; code != ExitOK || out != want {
		t.Errorf("as kubectl_complete-mvp: code %d\n--- got\n%s--- want\n%s", code, out, want)
	}
}

// TestCompletionCommand: cobra's completion command is there whenever a command line can run
// or complete it, and left out of the tree of a command line naming another command.
func TestCompletionCommand(t *testing.T) {
	shells := "bash\tGenerate the autocompletion script for bash\n" +
		"fish\tGenerate the autocompletion script for fish\n" +
		"powershell\tGenerate the autocompletion script for powershell\n" +
		"zsh\tGenerate the autocompletion script for zsh\n:4\n"
	tests := []struct {
		args     []string
		contains string
	}{
		{[]string{"completion", "bash"}, "__start_mvpctl()"},
		{[]string{"completion", "bash", "--no-descriptions"}, "__start_mvpctl()"},
		{[]string{"completion", "zsh"}, "#compdef mvpctl"},
		{[]string{"completion", "fish"}, "complete -c mvpctl "},
		{[]string{"completion", "powershell"}, "Register-ArgumentCompleter -CommandName 'mvpctl'"},
		{[]string{"--kubeconfig", "k", "completion", "bash"}, "__start_mvpctl()"},
		{[]string{"completion", "--help"}, "mvpctl completion [command]"},
		{[]string{"help", "completion"}, "mvpctl completion [command]"},
		{[]string{"--help"}, "\n  completion  Generate the autocompletion script for the specified shell\n"},
		{[]string{"__complete", "completion", ""}, shells},
		{[]string{"__complete", ""}, "completion\tGenerate the autocompletion script for the specified shell\n"},
		{[]string{"__complete", "comp"}, "completion\tGenerate the autocompletion script for the specified shell\n:4\n"},
		{[]string{"__complete", "completion", "bash", "--"}, "--no-descriptions\tdisable completion descriptions\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := run(t, tt.args...)
			if code != ExitOK || !strings.Contains(out, tt.contains) {
				t.Errorf("code %d, stderr %q, stdout lacks %q:\n%s", code, errOut, tt.contains, out)
			}
		})
	}
	// A command line naming another command has no completion command: `mvpctl routes
	// completion` is routes with an argument, as before.
	g := &globalOptions{streams: Streams{Out: io.Discard, ErrOut: io.Discard}, configFlags: kubeflags.New()}
	root := newRootCmdFor(g, []string{"version"})
	root.SetArgs([]string{"version"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			t.Errorf("the tree of `mvpctl version` has the completion command")
		}
	}
	_, errOut, code := run(t, "version", "completion")
	if want := "error: unknown command \"completion\" for \"mvpctl version\"\n"; code != ExitError || errOut != want {
		t.Errorf("version completion: code %d, %q, want %q", code, errOut, want)
	}
}
