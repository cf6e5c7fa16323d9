//go:build snapdecode

package snapshot

// Built with -tags snapdecode (tools/gen/snapdecode, which reads this package's types to
// write fastdecode_gen.go), the package leaves the generated decoder out, so that a stale or
// broken generated file never keeps the generator from running. Every decode then takes the
// reference path.
func fastDecode([]byte, *Snapshot) (ok, plainText bool, refused error) { return false, false, nil }
