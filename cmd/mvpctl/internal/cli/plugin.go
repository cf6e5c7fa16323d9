package cli

import (
	"regexp"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// As a kubectl plugin, mvpctl is on PATH as kubectl-mvp (krew links it so; by hand, a copy or
// a symlink) and run as `kubectl mvp`: kubectl execs it with argv[0] the plugin's path.
const (
	PluginBinary      = "kubectl-mvp"
	pluginDisplayName = "kubectl mvp"
	// PluginCompletionBinary is what kubectl (1.26+) runs to complete `kubectl mvp ...`; a
	// copy of or symlink to the binary under this name behaves as `kubectl-mvp __complete`.
	PluginCompletionBinary = "kubectl_complete-mvp"
)

// Binary is the path the binary was run by (argv[0]): as kubectl-mvp it is a kubectl plugin.
type Binary string

// Name is the binary's base name without a .exe suffix.
func (b Binary) Name() string {
	argv0 := string(b)
	if i := strings.LastIndexAny(argv0, `/\`); i >= 0 {
		argv0 = argv0[i+1:]
	}
	if strings.HasSuffix(strings.ToLower(argv0), ".exe") {
		argv0 = argv0[:len(argv0)-len(".exe")]
	}
	return argv0
}

// IsPlugin reports whether the binary runs as a kubectl plugin, for itself or for kubectl's
// completion of it.
func (b Binary) IsPlugin() bool {
	n := b.Name()
	return n == PluginBinary || n == PluginCompletionBinary
}

// Args are the arguments the command line runs with: those given, after `__complete` when
// the binary runs as kubectl_complete-mvp.
func (b Binary) Args(args []string) []string {
	if b.Name() == PluginCompletionBinary {
		return append([]string{cobra.ShellCompRequestCmd}, args...)
	}
	return args
}

// mvpctlWord is mvpctl as the name of the command, not in mvpctl.io/v1alpha1, mvpctl-probe or
// a path such as bin/mvpctl.
var mvpctlWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[^\w./-])mvpctl([^\w./-]|$)`) })

// DisplayText is s with the command called as the user calls it: `kubectl mvp` for the
// kubectl plugin, else unchanged.
func (b Binary) DisplayText(s string) string {
	if !b.IsPlugin() {
		return s
	}
	// Twice: the second pass catches a match whose leading character the first one consumed
	// ("mvpctl mvpctl").
	for range 2 {
		s = mvpctlWord().ReplaceAllString(s, "${1}"+pluginDisplayName+"${2}")
	}
	return s
}

// AsKubectlPlugin names the command tree kubectl-mvp, shown as `kubectl mvp` in usage lines,
// help, examples and errors (cobra's CommandDisplayNameAnnotation), when the binary runs as
// the plugin.
func (b Binary) AsKubectlPlugin(root *cobra.Command) {
	if !b.IsPlugin() {
		return
	}
	root.Use = PluginBinary // Name(): completion scripts complete the binary kubectl-mvp
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations[cobra.CommandDisplayNameAnnotation] = pluginDisplayName
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Short = b.DisplayText(c.Short)
		c.Long = b.DisplayText(c.Long)
		c.Example = b.DisplayText(c.Example)
		for _, fs := range []*pflag.FlagSet{c.PersistentFlags(), c.Flags()} {
			fs.VisitAll(func(f *pflag.Flag) { f.Usage = b.DisplayText(f.Usage) })
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
