package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/pkg/replay"
)

// evidenceFlags are the flags of how far back client evidence must look, shared by preflight
// and watch: --evidence-window.
type evidenceFlags struct {
	window windowValue
}

func (f *evidenceFlags) addFlags(fs *pflag.FlagSet) {
	f.window = windowValue(replay.DefaultEvidenceWindow)
	fs.Var(&f.window, "evidence-window", "how far back client evidence must look to show that nothing uses an API (e.g. 7d, 36h, 30m): a source covering less (counters since a restart, a short audit log) cannot, and the API may break; --prometheus covers restarts")
}

// windowValue is a duration that also takes whole days: 7d, 36h, 90m.
type windowValue time.Duration

func (w *windowValue) String() string { return replay.SpanText(time.Duration(*w)) }
func (w *windowValue) Type() string   { return "duration" }

func (w *windowValue) Set(s string) error {
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseUint(days, 10, 16)
		if err != nil {
			return fmt.Errorf("%q: want a whole number of days (7d), or a duration (36h, 30m)", s)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return fmt.Errorf("%q: want a duration (7d, 36h, 30m)", s)
		}
	}
	if d <= 0 {
		return fmt.Errorf("%q: the window must be longer than zero", s)
	}
	*w = windowValue(d)
	return nil
}
