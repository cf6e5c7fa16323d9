package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/kubeflags"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestNearestName: a typo's closest name, and none for a name that is no typo of any.
func TestNearestName(t *testing.T) {
	names := []string{"to", "snapshot", "servers", "steps", "step", "no-color", "output"}
	for _, tc := range []struct{ name, want string }{
		{"too", "to"}, {"snapshto", "snapshot"}, {"server", "servers"}, {"stpe", "step"},
		{"no-colour", "no-color"}, {"ouptut", "output"}, {"kubeconfig", ""}, {"x", ""},
	} {
		if got := NearestName(tc.name, names); got != tc.want {
			t.Errorf("NearestName(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// parse binds the connection flags and add's to a flag set and parses args.
func parse(t *testing.T, args []string, add func(*pflag.FlagSet)) {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	kubeflags.New().AddFlags(fs)
	add(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
}

func checkErr(t *testing.T, args []string, err error, want string) {
	t.Helper()
	if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
		t.Errorf("%s: %v, want %q", strings.Join(args, " "), err, want)
	}
}

// TestSnapshotSourceValidate: the flags of a live read are refused with a snapshot file (the
// connection flags too, unless the command sends requests anyway), and bounded without.
func TestSnapshotSourceValidate(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		sends bool
		want  string
	}{
		{[]string{"--snapshot", "s.yaml"}, false, ""},
		{[]string{"--snapshot", "s.yaml", "--endpoint", "https://10.0.0.12:6443"}, false, "--endpoint cannot be used with --snapshot: it applies to a read of the live cluster"},
		{[]string{"--snapshot", "s.yaml", "--server", "https://10.0.0.12:6443"}, false, "--server cannot be used with --snapshot"},
		{[]string{"--snapshot", "s.yaml", "--server", "https://10.0.0.12:6443"}, true, ""},
		{[]string{"--snapshot", "s.yaml", "--timeout", "1s", "--leases=false"}, false, "--timeout, --leases cannot be used with --snapshot: they apply"},
		{[]string{"--concurrency", "0"}, false, "--concurrency must be at least 1"},
		{[]string{"--timeout", "0s"}, false, "--timeout must be positive"},
		{[]string{"--lb-samples", "1001"}, false, "--lb-samples must be 1 to 1000"},
		{[]string{"--via-lb", "--contexts", "a,b"}, false, "--via-lb samples the kubeconfig's server"},
		{[]string{"--via-lb", "--lb-samples", "10"}, false, ""},
	} {
		var s SnapshotSource
		parse(t, tc.args, s.AddFlags)
		if tc.sends {
			s.SendRequests()
		}
		checkErr(t, tc.args, s.Validate(), tc.want)
	}
}

func TestRequireReachable(t *testing.T) {
	snap := snapshot.New()
	snap.Servers = []snapshot.Server{{Name: "a", Error: "connection refused"}, {Name: "b"}}
	err := RequireReachable(snap, liveHint("pass --snapshot FILE"))
	if want := "no apiserver could be read (a: connection refused): check --kubeconfig/--context and the address, or pass --snapshot FILE"; err == nil || err.Error() != want {
		t.Errorf("RequireReachable = %v, want %q", err, want)
	}
	snap.Servers[1].Reachable = true
	if err := RequireReachable(snap, snapshotFileHint); err != nil {
		t.Errorf("one server read: %v", err)
	}
}

func TestReadManifests(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, 2<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		specs []string
		want  string
	}{
		{nil, ""},
		{[]string{"kas-a"}, `--static-pod-manifest "kas-a": want SERVER=FILE`},
		{[]string{"kas-a=" + filepath.Join(dir, "none.yaml")}, "cannot read it: no such file or directory"},
		{[]string{"kas-a=" + big}, "larger than"},
	} {
		_, err := ReadManifests(tc.specs)
		checkErr(t, tc.specs, err, tc.want)
	}
	if cp, err := ReadControlPlane(""); cp != nil || err != nil {
		t.Errorf("ReadControlPlane(\"\") = %v, %v; want none", cp, err)
	}
}

func TestProfileDir(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	t.Setenv("XDG_CONFIG_HOME", "relative") // not absolute: ignored, as the XDG rule says
	if dir, shown := ProfileDir(); dir != "/home/u/.config/mvpctl/profiles" || shown != "~/.config/mvpctl/profiles" {
		t.Errorf("ProfileDir = %q, %q", dir, shown)
	}
	t.Setenv("XDG_CONFIG_HOME", "/etc/xdg")
	if dir, shown := ProfileDir(); dir != "/etc/xdg/mvpctl/profiles" || shown != dir {
		t.Errorf("ProfileDir = %q, %q", dir, shown)
	}
}

func TestCheckNamespaceFlag(t *testing.T) {
	for _, uses := range []bool{false, true} {
		cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
		cmd.Flags().StringP("namespace", "n", "", "")
		if uses {
			UsesNamespace(cmd)
		}
		if err := cmd.Flags().Parse([]string{"-n", "team-a"}); err != nil {
			t.Fatal(err)
		}
		if err := CheckNamespaceFlag(cmd); (err == nil) != uses {
			t.Errorf("uses namespace %v: %v", uses, err)
		}
	}
}

func TestFlagError(t *testing.T) {
	root := &cobra.Command{Use: "mvpctl"}
	group := &cobra.Command{Use: "simulate"}
	sub := &cobra.Command{Use: "upgrade", Run: func(*cobra.Command, []string) {}}
	sub.Flags().String("to", "", "")
	group.AddCommand(sub)
	root.AddCommand(group)
	root.Flags().String("snapshot", "", "")
	unknown := func(name string) error { return errors.New("unknown flag: --" + name) }
	for _, tc := range []struct {
		c    *cobra.Command
		flag string
		want string
	}{
		{root, "snapshto", "unknown flag: --snapshto (did you mean --snapshot?)"},
		{group, "to", "unknown flag: --to: mvpctl simulate needs a command first: mvpctl simulate upgrade --to ..."},
		{root, "kubeconfig", "unknown flag: --kubeconfig"},
	} {
		if got := FlagError(tc.c, unknown(tc.flag)).Error(); got != tc.want {
			t.Errorf("FlagError(--%s) = %q, want %q", tc.flag, got, tc.want)
		}
	}
}
