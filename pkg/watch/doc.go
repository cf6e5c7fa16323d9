// Package watch follows a control plane through time: given successive snapshots (a rolling
// upgrade as it happens), it reports what changed — a server added, gone, down, back, on
// another version; a GVR's outcome on a server — and the windows during which a GVR that some
// server serves answered 404 or 503 somewhere, with their durations. It is pure: the command
// decides when to take snapshots (identity-lease events, an interval) and prints the events.
package watch
