// Package clientevidence reads the evidence of what clients use from a live cluster: the
// managedFields of objects and their last-applied-configuration (managedfields.go,
// lastapplied.go), Helm's release records (helm.go, helm_record.go), and turns a server's
// request counters into counts (requestcounts.go). No printing: what is skipped goes to a
// callback.
package clientevidence
