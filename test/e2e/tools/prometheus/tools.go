//go:build tools

// Package tools pins github.com/prometheus/prometheus v0.316.0 (Prometheus 3.x): promtool,
// which unit-tests the alert rules of deploy/exporter (promtool test rules), and the
// Prometheus server the e2e harness runs to scrape the exporter (harness.Prometheus). Both
// are built with -tags remove_all_sd: the tests configure static targets only.
package tools

import (
	_ "github.com/prometheus/prometheus/cmd/prometheus"
	_ "github.com/prometheus/prometheus/cmd/promtool"
)
