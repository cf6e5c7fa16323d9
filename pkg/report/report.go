// Package report holds what every structured mvpctl report shares: the version of the
// report kinds (RoutingTable, Explanation, DiscoveryReport, PreflightReport, ...), which
// scripts read with -o json|yaml.
//
// It is apart from the snapshot format (snapshot.APIVersion) on purpose: a snapshot is an
// input document that evolves with what discovery records, a report is an output contract;
// one can change version without the other. The package is a leaf, so the packages that
// build reports can use it without depending on the one that prints them.
package report

// APIVersion is the apiVersion of every mvpctl report kind.
const APIVersion = "mvpctl.io/v1alpha1"
