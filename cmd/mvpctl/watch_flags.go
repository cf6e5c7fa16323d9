package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/spf13/pflag"
)

// Bounds of --interval: a full read of every apiserver costs several requests per server.
const (
	defaultWatchInterval = 2 * time.Second
	minWatchInterval     = 200 * time.Millisecond
)

// watchFlags are the flags of the watch loop, shared by `mvpctl watch` and `routes --watch`.
type watchFlags struct {
	interval     time.Duration
	untilStable  time.Duration
	timeoutTotal time.Duration
	leaseWatch   bool
	metrics      bool
	exporter     exporterFlags // `mvpctl watch` only (watch_exporter.go)
	fs           *pflag.FlagSet
}

var watchFlagNames = []string{"interval", "until-stable", "timeout-total", "lease-watch", "metrics"}

func (w *watchFlags) addFlags(fs *pflag.FlagSet) {
	w.fs = fs
	fs.DurationVar(&w.interval, "interval", defaultWatchInterval, "time between the starts of two reads of the control plane (at least 200ms)")
	fs.DurationVar(&w.untilStable, "until-stable", 0, "stop once nothing has changed for this long (0: run until interrupted)")
	fs.DurationVar(&w.timeoutTotal, "timeout-total", 0, "stop after this long in all (0: no limit)")
	fs.BoolVar(&w.leaseWatch, "lease-watch", true, "watch the identity leases in kube-system and read the plane again at once when one changes (list and watch on leases); with --lease-watch=false only every --interval")
	fs.BoolVar(&w.metrics, "metrics", true, "read each apiserver's peer-proxy counters from /metrics every --interval and print what was proxied (get on /metrics)")
}

// validate checks the flags of a watch (watch, routes --watch) together with its live read's.
func (w *watchFlags) validate(live *cli.DiscoverFlags) error {
	switch {
	case w.interval < minWatchInterval:
		return fmt.Errorf("--interval must be at least %s, got %s", minWatchInterval, w.interval)
	case w.untilStable < 0 || w.timeoutTotal < 0:
		return fmt.Errorf("--until-stable and --timeout-total cannot be negative")
	case live.ViaLB:
		return errors.New("--via-lb cannot be used with watch: watch follows each apiserver by name from one read to the next, and the server classes of a sampling are estimated anew each time")
	}
	if err := w.exporter.validate(); err != nil {
		return err
	}
	return live.Validate()
}

// setFlags lists the watch flags given on the command line.
func (w *watchFlags) setFlags() []string {
	var set []string
	for _, n := range watchFlagNames {
		if w.fs != nil && w.fs.Changed(n) {
			set = append(set, "--"+n)
		}
	}
	return set
}
