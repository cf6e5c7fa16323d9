package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/kubeflags"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/preflight"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// CompletionRequest reports whether args ask cobra for completions (what the shell scripts of
// `mvpctl completion` run). Only then are the completion functions registered: walking every
// flag of every command costs a third of the start-up of `mvpctl version`.
func CompletionRequest(args []string) bool {
	return len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd)
}

// RegisterCompletions gives the flags and arguments of every command of root their dynamic
// shell completion (`mvpctl completion SHELL`, or `mvpctl __complete ARGS...` as the shell
// scripts and kubectl's plugin completion call it). Flags are found by name, so a command
// that declares one of them gets its completion without code of its own:
//
//   - --apiserver: the server names of the --snapshot file. Without --snapshot, nothing: a
//     completion never dials the cluster.
//   - --to and `profiles show VERSION`: the versions of the profiles loaded (embedded, the
//     profile directory's, --profile's).
//   - -o/--output: the formats of the command (output.FormatsAnnotation).
//   - --fail-on: its thresholds (explain's: the HTTP statuses it takes).
//   - --context, --contexts, --cluster, --user: the kubeconfig's names, read from the files
//     the kubeconfig loading rules find (no network).
//   - --snapshot and --scenario: YAML and JSON files.
func RegisterCompletions(root *cobra.Command, cf *kubeflags.Flags) {
	done := map[*pflag.Flag]bool{}
	register := func(c *cobra.Command, fs *pflag.FlagSet) {
		fs.VisitAll(func(f *pflag.Flag) {
			if done[f] {
				return
			}
			var fn cobra.CompletionFunc
			switch f.Name {
			case "apiserver":
				fn = completeServers
			case "to":
				fn = completeProfileVersions
			case "output":
				if formats, ok := f.Annotations[output.FormatsAnnotation]; ok {
					fn = fixedCompletions(formats...)
				}
			case "fail-on":
				values := []string{"404", "503", "404,503"} // explain's: HTTP statuses
				if c.Name() != "explain" {
					values = nil
					for _, v := range preflight.FailOnValues {
						values = append(values, string(v))
					}
				}
				fn = fixedCompletions(values...)
			case "context":
				fn = completeKubeconfig(cf, contextNames, false)
			case "contexts":
				fn = completeKubeconfig(cf, contextNames, true)
			case "cluster":
				fn = completeKubeconfig(cf, clusterNames, false)
			case "user":
				fn = completeKubeconfig(cf, userNames, false)
			case "snapshot", "scenario":
				_ = fs.SetAnnotation(f.Name, cobra.BashCompFilenameExt, []string{"yaml", "yml", "json"})
			}
			if fn == nil {
				return
			}
			done[f] = true
			if err := c.RegisterFlagCompletionFunc(f.Name, fn); err != nil {
				panic(fmt.Sprintf("completion of --%s of %q: %v", f.Name, c.CommandPath(), err)) // a programming error
			}
		})
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		register(c, c.PersistentFlags())
		register(c, c.LocalNonPersistentFlags())
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if show, _, err := root.Find([]string{"profiles", "show"}); err == nil && show.Name() == "show" {
		show.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return completeProfileVersions(cmd, args, toComplete)
		}
	}
}

// fixedCompletions completes one of values.
func fixedCompletions(values ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, v := range values {
			if strings.HasPrefix(v, toComplete) {
				out = append(out, v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeServers completes the names of the servers of the --snapshot file, each described
// by its version. Without a file (a live discovery, or stdin) there is nothing to offer: a
// completion must not reach the cluster.
func completeServers(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	file, _ := cmd.Flags().GetString("snapshot")
	if file == "" || file == "-" {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	snap, err := snapshot.LoadFile(file)
	if err != nil {
		cobra.CompDebugln(err.Error(), false)
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, s := range snap.Servers {
		if !strings.HasPrefix(s.Name, toComplete) {
			continue
		}
		desc := s.Version
		if !s.Reachable {
			desc = strings.TrimSpace(desc + " unreachable")
		}
		out = append(out, cobra.CompletionWithDesc(s.Name, desc))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeProfileVersions completes the versions of the profiles the command would load (the
// embedded ones, the profile directory's, --profile's), as `profiles list` prints them
// (v1.36.3), or without the v when the word typed so far starts with a digit.
func completeProfileVersions(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	files, _ := cmd.Flags().GetStringArray("profile")
	if _, err := profile.Use(ProfileSources(files)); err != nil {
		cobra.CompDebugln(err.Error(), false)
	}
	ps, err := profile.All()
	if err != nil {
		cobra.CompDebugln(err.Error(), false)
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, p := range ps {
		v := p.Version.String()
		if toComplete != "" && !strings.HasPrefix(toComplete, "v") {
			v = strings.TrimPrefix(v, "v")
		}
		if strings.HasPrefix(v, toComplete) {
			kind := "profile"
			if p.Provisional != nil {
				kind = "provisional profile"
			}
			out = append(out, cobra.CompletionWithDesc(v, fmt.Sprintf("Kubernetes %d.%d %s, %d resources", p.Version.Major, p.Version.Minor, kind, len(p.Resources))))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

func contextNames(c *clientcmdapi.Config) map[string]string {
	out := map[string]string{}
	for name, ctx := range c.Contexts {
		out[name] = ctx.Cluster
	}
	return out
}

func clusterNames(c *clientcmdapi.Config) map[string]string {
	out := map[string]string{}
	for name, cl := range c.Clusters {
		out[name] = cl.Server
	}
	return out
}

func userNames(c *clientcmdapi.Config) map[string]string {
	out := map[string]string{}
	for name := range c.AuthInfos {
		out[name] = ""
	}
	return out
}

// completeKubeconfig completes the names names picks from the kubeconfig (--kubeconfig, else
// KUBECONFIG, else ~/.kube/config, merged as kubectl merges them), read from disk only. list
// is for a comma-separated flag: the last item is completed, after the ones typed before it.
func completeKubeconfig(cf *kubeflags.Flags, names func(*clientcmdapi.Config) map[string]string, list bool) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		if cf != nil && cf.KubeConfig != "" {
			rules.ExplicitPath = cf.KubeConfig
		}
		if err := kubeflags.CheckFiles(rules); err != nil {
			cobra.CompDebugln(err.Error(), false)
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		cfg, err := rules.Load()
		if err != nil {
			cobra.CompDebugln(err.Error(), false)
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		before, word := "", toComplete
		if i := strings.LastIndex(toComplete, ","); list && i >= 0 {
			before, word = toComplete[:i+1], toComplete[i+1:]
		}
		m := names(cfg)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var out []cobra.Completion
		for _, k := range keys {
			if strings.HasPrefix(k, word) {
				out = append(out, cobra.CompletionWithDesc(before+k, m[k]))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
