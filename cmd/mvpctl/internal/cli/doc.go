// Package cli is the plumbing every mvpctl command shares, as kubectl's cmd/util is: the
// flag sets (the live read's discovery flags, the snapshot source, --resource/--group,
// --profile, -n, the -o formats), the kubeconfig and credentials that reach the servers, the
// shell completion of flags and arguments, and the hints for a mistyped flag. The commands
// (cmd/mvpctl) bind these to cobra commands and call the library; nothing here decides a
// result or prints one.
package cli
