package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/kubeflags"
)

// TestOptionsCommand: the global flags are listed by mvpctl options and by no command's help,
// which points at mvpctl options instead; every command still accepts them.
func TestOptionsCommand(t *testing.T) {
	global := []string{"--kubeconfig", "--context", "--cluster", "--user", "--server", "--token", "--certificate-authority",
		"--client-certificate", "--client-key", "--insecure-skip-tls-verify", "--tls-server-name", "--as", "--as-group",
		"--request-timeout", "--namespace", "--no-color", "-v,"}
	out, stderr, code := run(t, "options")
	if code != ExitOK || !strings.HasPrefix(out, "The following options can be passed to any command:") {
		t.Fatalf("options: exit %d, %q %q", code, out, stderr)
	}
	for _, f := range global {
		if !strings.Contains(out, f) {
			t.Errorf("mvpctl options does not list %s", f)
		}
	}
	root := newRootCmd(&globalOptions{configFlags: kubeflags.New()})
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				walk(sub, append(append([]string(nil), path...), sub.Name()))
			}
		}
	}
	walk(root, nil)
	for _, p := range paths {
		help, _, code := run(t, append(append([]string(nil), p...), "--help")...)
		name := "mvpctl " + strings.Join(p, " ")
		if code != ExitOK || !strings.Contains(help, `Use "mvpctl options" for a list of global command-line options (applies to all commands).`) {
			t.Errorf("%s --help: exit %d, no pointer to mvpctl options:\n%s", name, code, help)
		}
		for _, f := range []string{"--kubeconfig", "--token", "--insecure-skip-tls-verify", "--request-timeout", "Global Flags"} {
			if name != "mvpctl options" && strings.Contains(help, f) {
				t.Errorf("%s --help lists %s", name, f)
			}
		}
	}
	// Parsed everywhere; with a snapshot file, the connection flags are refused with the
	// reason (no cluster is read), -v and --no-color taken.
	if _, stderr, code := run(t, "routes", "--snapshot", skew, "--kubeconfig", "/nonexistent", "--context", "x", "--request-timeout", "5s", "-v", "0", "--no-color"); code != ExitError ||
		stderr != "error: --context, --kubeconfig, --request-timeout cannot be used with --snapshot: they apply to a read of the live cluster, and none is made (drop --snapshot to read the live cluster)\n" {
		t.Errorf("routes --snapshot with connection flags: exit %d: %s", code, stderr)
	}
	if _, stderr, code := run(t, "routes", "--snapshot", skew, "-v", "0", "--no-color"); code != ExitIncomplete {
		t.Errorf("routes --snapshot with -v and --no-color: exit %d: %s", code, stderr)
	}
}
