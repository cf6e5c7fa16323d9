package main

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/kubeflags"
)

// parseFlags parses args into flags that addFlags adds, beside kubectl's connection flags as
// the root command has them: the options as a command line leaves them, nothing run. It
// returns the arguments that are not flags.
func parseFlags(t *testing.T, args []string, addFlags func(*pflag.FlagSet)) []string {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	kubeflags.New().AddFlags(fs)
	addFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return fs.Args()
}

// validateCase is one command line and the error its validate step gives ("" for none).
type validateCase struct {
	args []string
	want string
}

func checkValidate(t *testing.T, command string, tc validateCase, err error) {
	t.Helper()
	switch {
	case tc.want == "" && err != nil:
		t.Errorf("%s %s: %v", command, strings.Join(tc.args, " "), err)
	case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
		t.Errorf("%s %s: %v, want %q", command, strings.Join(tc.args, " "), err, tc.want)
	}
}

// liveFlagCases are the rules of the snapshot source, which every command reading one
// shares: the flags of a live read are refused with a snapshot file, and bounded without.
var liveFlagCases = []validateCase{
	{[]string{"--snapshot", "s.yaml"}, ""},
	{[]string{"--snapshot", "s.yaml", "--endpoint", "https://10.0.0.12:6443"}, "--endpoint cannot be used with --snapshot: it applies to a read of the live cluster"},
	{[]string{"--snapshot", "s.yaml", "--server", "https://10.0.0.12:6443"}, "--server cannot be used with --snapshot"},
	{[]string{"--snapshot", "-", "--context", "x", "--token", "t"}, "--context, --token cannot be used with --snapshot: they apply"},
	{[]string{"--context", "x", "--timeout", "3s"}, ""},
	{[]string{"--timeout", "0s"}, "--timeout must be positive"},
	{[]string{"--concurrency", "0"}, "--concurrency must be at least 1"},
	{[]string{"--lb-samples", "0"}, "--lb-samples must be 1 to 1000"},
	{[]string{"--via-lb", "--endpoint", "https://10.0.0.12:6443"}, "--via-lb samples the kubeconfig's server: it cannot be used with --endpoint or --contexts"},
}

func TestValidateRoutes(t *testing.T) {
	cases := append([]validateCase{
		{[]string{"-w"}, ""},
		{[]string{"--interval", "1s"}, "--interval only apply with --watch"},
		{[]string{"-w", "--snapshot", "s.yaml"}, "--watch follows the live cluster: it cannot be used with --snapshot"},
		{[]string{"-w", "--all"}, "it cannot be used with --all"},
		{[]string{"-w", "--group", "batch"}, "it cannot be used with --resource or --group"},
		{[]string{"--all", "--group", "batch", "--snapshot", "s.yaml"}, ""},
	}, liveFlagCases...)
	for _, tc := range cases {
		var o routesOptions
		parseFlags(t, tc.args, o.addFlags)
		checkValidate(t, "routes", tc, o.validate())
	}
}

func TestValidateExplain(t *testing.T) {
	cases := []validateCase{
		{[]string{"jobs", "--fail-on", "404,503"}, ""},
		{[]string{"jobs", "--fail-on", "404", "--fail-on", "503"}, ""},
		{[]string{"jobs", "--fail-on", "500"}, `--fail-on "500": want 404, 503 or both`},
		{[]string{"jobs", "--fail-on", "warning"}, `--fail-on "warning"`},
		{[]string{"--group", "batch", "GET", "/api/v1/pods"}, "with METHOD PATH the path names it"},
		{[]string{"GET"}, "GET needs a PATH"},
		{nil, "explain needs a resource or a request"},
		{[]string{"--resource", "cj"}, ""},
		{[]string{"jobs", "--step", "crash:kas-a", "--step", "upgrade:kas-b=1.37"}, ""},
		{[]string{"jobs", "--step", "crash"}, `--step "crash": want ACTION:SERVER`},
		{[]string{"jobs", "--step", "explode:kas-a"}, `--step "explode:kas-a"`},
	}
	for _, tc := range liveFlagCases {
		cases = append(cases, validateCase{append([]string{"jobs"}, tc.args...), tc.want})
	}
	for _, tc := range cases {
		var o explainOptions
		args := parseFlags(t, tc.args, o.addFlags)
		_, _, _, err := o.validate(args, "")
		checkValidate(t, "explain", tc, err)
	}
}

func TestValidateSimulate(t *testing.T) {
	for _, tc := range []struct {
		upgrade bool
		validateCase
	}{
		{true, validateCase{[]string{"--servers", "a=1.36", "--to", "1.37"}, ""}},
		{true, validateCase{[]string{"--servers", "a=1.36"}, "simulate upgrade needs --to VERSION"}},
		{false, validateCase{[]string{"--to", "1.37"}, "use simulate upgrade for --to"}},
		{false, validateCase{[]string{"--step", "crash:a", "--scenario", "s.yaml"}, "give one of --to, --scenario and --step"}},
		{false, validateCase{[]string{"--step", "crash:a", "--order", "a"}, "--order goes with --to"}},
		{true, validateCase{[]string{"--to", "1.37", "--servers", "a=1.36", "--snapshot", "s.yaml"}, "give one of --servers and --snapshot"}},
		{false, validateCase{[]string{"--scenario", "s.yaml", "--servers", "a=1.36"}, "scenario s.yaml says where to start"}},
		{false, validateCase{[]string{"--scenario", "s.yaml", "--timeout", "3s"}, "--timeout cannot be used with --scenario"}},
		{true, validateCase{[]string{"--to", "1.37", "--requests", "r.txt", "--audit-log", "a.log"}, "give one of --requests and --audit-log"}},
		{true, validateCase{[]string{"--to", "1.37", "--audit-log", "kas-a="}, `--audit-log "kas-a=": want FILE or SERVER=FILE`}},
		{true, validateCase{[]string{"--to", "1.37", "--audit-log", "kas-a=a.log", "--audit-log", "./x=y.log"}, ""}},
		{true, validateCase{[]string{"--to", "1.37", "--resource", "jobs", "--audit-log", "a.log"}, "--resource and --group narrow the routing, not replayed traffic"}},
		{true, validateCase{[]string{"--to", "1.37", "--servers", "a=1.36", "--context", "x"}, "--context cannot be used with --servers"}},
		{true, validateCase{[]string{"--to", "1.37", "--snapshot", "s.yaml", "--endpoint", "https://10.0.0.12:6443"}, "--endpoint cannot be used with --snapshot"}},
		{true, validateCase{[]string{"--to", "1.37", "--concurrency", "0"}, "--concurrency must be at least 1"}},
	} {
		o := simulateOptions{upgrade: tc.upgrade}
		parseFlags(t, tc.args, o.addFlags)
		checkValidate(t, map[bool]string{true: "simulate upgrade", false: "simulate run"}[tc.upgrade], tc.validateCase, o.validate())
	}
}

func TestValidatePreflight(t *testing.T) {
	for _, tc := range []struct {
		failOn, writeBaseline string
		validateCase
	}{
		{"warning", "", validateCase{[]string{"--servers", "a=1.36", "--to", "1.37"}, ""}},
		{"blocking", "", validateCase{[]string{"--servers", "a=1.36", "--step", "crash:a"}, ""}},
		{"warning", "", validateCase{[]string{"--servers", "a=1.36"}, "preflight needs --to VERSION or --scenario FILE (or --step)"}},
		{"sometimes", "", validateCase{[]string{"--to", "1.37"}, `--fail-on "sometimes": want one of`}},
		{"warning", "b.txt", validateCase{[]string{"--to", "1.37", "--group", "batch"}, "--write-baseline with --resource/--group would drop the accepted risks"}},
		{"warning", "", validateCase{[]string{"--to", "1.37", "--snapshot", "s.yaml", "--server", "https://10.0.0.12:6443"}, "--server cannot be used with --snapshot"}},
	} {
		o := preflightOptions{failOn: tc.failOn}
		o.accept.write = tc.writeBaseline
		parseFlags(t, tc.args, func(fs *pflag.FlagSet) {
			o.plan.addFlags(fs)
			o.filter.AddFlags(fs, "check only")
		})
		_, err := o.validate()
		checkValidate(t, "preflight", tc.validateCase, err)
	}
}

func TestValidateProbeAndTraffic(t *testing.T) {
	probeCases := []validateCase{
		{[]string{"--probe-concurrency", "0"}, "--probe-concurrency must be at least 1"},
		{[]string{"--qps", "0"}, "--qps must be positive"},
		{[]string{"--probe-timeout", "0s"}, "--probe-timeout must be positive"},
		{[]string{"--total-timeout", "-1s"}, "--total-timeout must be positive"},
		// probe and traffic send requests to a snapshot's servers: the connection flags apply.
		{[]string{"--snapshot", "s.yaml", "--context", "x", "--token", "t"}, ""},
		{[]string{"--snapshot", "s.yaml", "--endpoint", "https://10.0.0.12:6443"}, "--endpoint cannot be used with --snapshot"},
	}
	for _, tc := range probeCases {
		var o probeOptions
		parseFlags(t, tc.args, o.addFlags)
		checkValidate(t, "probe", tc, o.validate())
	}
	for _, tc := range []validateCase{
		{[]string{"--interval", "0s"}, "--interval and --read-timeout must be positive"},
		{[]string{"--snapshot", "s.yaml", "--server", "https://10.0.0.12:6443"}, ""},
		{[]string{"--concurrency", "0"}, "--concurrency must be at least 1"},
	} {
		var o trafficOptions
		parseFlags(t, tc.args, o.addFlags)
		checkValidate(t, "traffic", tc, o.validate())
	}
}

func TestValidateWatchAndSnapshot(t *testing.T) {
	for _, tc := range []validateCase{
		{nil, ""},
		{[]string{"--interval", "100ms"}, "--interval must be at least 200ms"},
		{[]string{"--until-stable", "-1s"}, "cannot be negative"},
		{[]string{"--via-lb"}, "--via-lb cannot be used with watch"},
		{[]string{"--timeout", "0s"}, "--timeout must be positive"},
	} {
		var o watchOptions
		parseFlags(t, tc.args, func(fs *pflag.FlagSet) {
			o.live.AddFlags(fs)
			o.flags.addFlags(fs)
		})
		checkValidate(t, "watch", tc, o.flags.validate(&o.live))
	}
	for _, tc := range []validateCase{
		{[]string{"--via-lb", "--lb-samples", "10"}, ""},
		{[]string{"--via-lb", "--contexts", "a,b"}, "--via-lb samples the kubeconfig's server"},
		{[]string{"--lb-samples", "1001"}, "--lb-samples must be 1 to 1000"},
	} {
		var o snapshotOptions
		parseFlags(t, tc.args, o.live.AddFlags)
		checkValidate(t, "snapshot", tc, o.live.Validate())
	}
}

func TestValidateProfilesRecord(t *testing.T) {
	for timeout, want := range map[time.Duration]string{time.Second: "", 0: "--timeout must be positive", -time.Second: "--timeout must be positive"} {
		o := profilesRecordOptions{timeout: timeout}
		checkValidate(t, "profiles record", validateCase{[]string{"--timeout", timeout.String()}, want}, o.validate())
	}
}
