package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/kubeflags"
)

// runAs executes mvpctl in-process as the binary argv0.
func runAs(t *testing.T, argv0 string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = execute(args, &globalOptions{streams: Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		configFlags: kubeflags.New(), clock: func() time.Time { return fixedNow }, argv0: argv0})
	return out.String(), errOut.String(), code
}

// As the kubectl plugin, no help text, usage line or example names mvpctl: every command says
// `kubectl mvp`.
func TestKubectlPluginHelp(t *testing.T) {
	for _, argv0 := range []string{"kubectl-mvp", "/home/u/.krew/bin/kubectl-mvp", `C:\krew\bin\kubectl-mvp.exe`} {
		out, errOut, code := runAs(t, argv0, "--help")
		if code != ExitOK || !strings.Contains(out, "kubectl mvp [command]") || strings.Contains(out, "mvpctl ") {
			t.Errorf("%s --help: code %d, stderr %q, stdout:\n%s", argv0, code, errOut, out)
		}
	}
	g := &globalOptions{streams: Streams{In: strings.NewReader("")}, configFlags: kubeflags.New(), argv0: "kubectl-mvp"}
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk(newRootCmd(g), nil)
	paths = append(paths, []string{"completion"}, []string{"completion", "bash"}) // added by cobra at run time
	const pluginBin = "kubectl-mvp"
	for _, path := range paths {
		out, _, code := runAs(t, pluginBin, append(path, "--help")...)
		if code != ExitOK || !strings.Contains(out, "kubectl mvp") || cli.Binary(pluginBin).DisplayText(out) != out /* it names mvpctl */ {
			t.Errorf("kubectl-mvp %s --help: code %d, names mvpctl or not kubectl mvp:\n%s", strings.Join(path, " "), code, out)
		}
	}
	_, errOut, code := runAs(t, "kubectl-mvp", "version", "-o", "table")
	if want := `error: unknown output format "table" for "kubectl mvp version": want one of text|json|yaml` + "\n"; code != ExitError || errOut != want {
		t.Errorf("error: code %d, %q; want %q", code, errOut, want)
	}
	_, errOut, _ = runAs(t, "kubectl-mvp", "profiles", "show", "1.20")
	if !strings.Contains(errOut, "kubectl mvp has profiles for") {
		t.Errorf("error from a library names mvpctl: %q", errOut)
	}
	// As mvpctl, nothing changes.
	out, _, _ := run(t, "--help")
	if !strings.Contains(out, "mvpctl [command]") || strings.Contains(out, "kubectl mvp") {
		t.Errorf("mvpctl --help:\n%s", out)
	}
}
