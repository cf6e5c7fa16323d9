package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/pkg/preflight"
)

// Each command checks its flags together in one validate step, before it reads anything:
// the rules of which flags go together live there, and options_validate_test.go tests them as
// a table, without running a command.

// validate checks preflight's flags together and returns --fail-on's threshold.
func (o *preflightOptions) validate() (preflight.FailOn, error) {
	failOn, err := parseFailOn(o.failOn)
	if err != nil {
		return "", err
	}
	if o.plan.to == "" && o.plan.scenario == "" && len(o.plan.steps) == 0 {
		return "", errors.New("preflight needs --to VERSION or --scenario FILE (or --step)")
	}
	// A filtered report lacks the other findings, so a baseline written from it would drop
	// the rules that accept them.
	if f := o.filter.Filter(); o.accept.write != "" && !f.Empty() {
		return "", fmt.Errorf("--write-baseline with --resource/--group would drop the accepted risks of what %s leaves out: give it without them", f)
	}
	stdin := 0
	for _, m := range o.manifests {
		if m == "-" {
			stdin++
		}
	}
	if o.plan.source.File == "-" || o.plan.requests == "-" {
		stdin++
	}
	if len(o.liveOnlySet) > 0 && !o.live() {
		what := "it reads"
		if len(o.liveOnlySet) > 1 {
			what = "they read"
		}
		return "", fmt.Errorf("%s: %s the live cluster, which --snapshot, --servers and --scenario do not: give it without them", strings.Join(o.liveOnlySet, ", "), what)
	}
	if err := o.evidence.validate(); err != nil {
		return "", err
	}
	if stdin > 1 {
		return "", errors.New("stdin (-) can be read once: give --manifests - alone, or the other input as a file")
	}
	return failOn, o.plan.validate()
}

// liveOnlyFlags are the flags set in fs that only a read of the live cluster uses: their help
// begins "live: ".
func liveOnlyFlags(fs *pflag.FlagSet) []string {
	var set []string
	fs.Visit(func(f *pflag.Flag) {
		if strings.HasPrefix(f.Usage, "live: ") {
			set = append(set, "--"+f.Name)
		}
	})
	return set
}
