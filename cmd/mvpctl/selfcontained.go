package main

import "github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"

// selfContained reports whether the command line (as argv0 runs it) is `mvpctl version`, which
// reads no kubeconfig, runs no credential plugin, contacts no server, logs nothing through
// klog and writes no file: it prints the build's version and the embedded profiles. It then
// runs without the process's two guards, whose set-up took about 2% of a run of it
// (docs/performance.md):
//
//   - the stderr guard (cmd/mvpctl/internal/process): nothing but mvpctl itself can write to its stderr;
//   - the signal handler (cmd/mvpctl/internal/process), which stops requests and removes temporary files:
//     there are neither, and SIGINT or SIGTERM end the process by their default action, which
//     a shell reports as 130 or 143, the codes docs/exit-codes.md gives.
//
// Global flags before the command name, or the binary run as kubectl's completion of the
// plugin (which reads the kubeconfig's names), keep both: only the plain command line is
// recognised. TestVersionRunsNoCredentialPlugin fails should version ever read the kubeconfig.
func selfContained(argv0 string, args []string) bool {
	return cli.Binary(argv0).Name() != cli.PluginCompletionBinary && len(args) > 0 && args[0] == "version"
}
