//go:build tools

// Package tools pins sigs.k8s.io/metrics-server/cmd/metrics-server v0.8.0, the aggregated
// API server the e2e harness registers with an APIService (harness.MetricsServer).
package tools

import _ "sigs.k8s.io/metrics-server/cmd/metrics-server"
