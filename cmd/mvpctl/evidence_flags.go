package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/config"
	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/pkg/promevidence"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// evidenceFlags are the flags of how far back client evidence must look and of the
// Prometheus that keeps it: --evidence-window, --prometheus, --prometheus-config,
// --prometheus-selector.
type evidenceFlags struct {
	window     windowValue
	prometheus string
	promConfig string
	selector   string
}

func (f *evidenceFlags) addFlags(fs *pflag.FlagSet) {
	f.window = windowValue(replay.DefaultEvidenceWindow)
	fs.Var(&f.window, "evidence-window", "how far back client evidence must look to show that nothing uses an API (e.g. 7d, 36h, 30m): a source covering less (counters since a restart, a short audit log) cannot, and the API may break; --prometheus covers restarts")
	fs.StringVar(&f.prometheus, "prometheus", "", "client evidence from the Prometheus (or Thanos Query, Mimir) that scrapes the apiservers: its query API's URL; what apiserver_request_total counted over --evidence-window, across restarts")
	fs.StringVar(&f.promConfig, "prometheus-config", "", "--prometheus: a file of Prometheus' HTTP client configuration (authorization/bearer token file, basic_auth, tls_config, proxy_url), as in a scrape config")
	fs.StringVar(&f.selector, "prometheus-selector", "", `--prometheus: label matchers added to every query, for a Prometheus of several clusters (cluster="prod-eu-1")`)
}

// validate checks the Prometheus flags together.
func (f *evidenceFlags) validate() error {
	if f.prometheus == "" {
		if f.promConfig != "" || f.selector != "" {
			return errors.New("--prometheus-config and --prometheus-selector configure --prometheus: give it too")
		}
		return nil
	}
	if u, err := url.Parse(f.prometheus); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--prometheus %q: want an http(s) URL of a Prometheus query API", promevidence.PublicURL(f.prometheus))
	}
	if err := promevidence.ValidateSelector(f.selector); err != nil {
		return fmt.Errorf("--prometheus-selector: %w", err)
	}
	return nil
}

// readPrometheus records what the --prometheus kept over the window in snap (nothing without
// --prometheus). A read that fails is recorded with its cause and said once, never fatal: the
// evidence is not read and the result partial.
func (f *evidenceFlags) readPrometheus(ctx context.Context, snap *snapshot.Snapshot, warn func(string)) error {
	if f.prometheus == "" {
		return nil
	}
	o, err := f.promOptions()
	if err != nil {
		return err
	}
	snap.Prometheus = readWarned(ctx, o, warn)
	return nil
}

// prometheusReader reads --prometheus each time it is called (the exporter's gate runs).
func (f *evidenceFlags) prometheusReader(warn func(string)) (func() *snapshot.PrometheusEvidence, error) {
	o, err := f.promOptions()
	if err != nil {
		return nil, err
	}
	return func() *snapshot.PrometheusEvidence { return readWarned(context.Background(), o, warn) }, nil
}

// readWarned reads the Prometheus of o and says once when it could not.
func readWarned(ctx context.Context, o promevidence.Options, warn func(string)) *snapshot.PrometheusEvidence {
	pe := promevidence.Read(ctx, o)
	if e := pe.Error; e != "" {
		warn(fmt.Sprintf("Prometheus %s not read: %s (its client evidence is missing: the result is partial)", pe.URL, e))
	}
	return pe
}

// promOptions are the read's options from the flags and the --prometheus-config file.
func (f *evidenceFlags) promOptions() (promevidence.Options, error) {
	o := promevidence.Options{URL: f.prometheus, Selector: f.selector, Window: time.Duration(f.window)}
	if f.promConfig != "" {
		cfg, _, err := config.LoadHTTPConfigFile(f.promConfig)
		if err == nil {
			err = cfg.Validate()
		}
		if err != nil {
			return o, fmt.Errorf("--prometheus-config %s: %s", f.promConfig, oneLineErr(err))
		}
		o.HTTP = *cfg
	}
	return o, nil
}

// oneLineErr is err's text on one line.
func oneLineErr(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

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
