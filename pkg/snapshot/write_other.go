//go:build !unix

package snapshot

import "os"

// keepOwner: files have no Unix owner here; the mode is kept by keepModeAndOwner.
func keepOwner(*os.File, os.FileInfo) error { return nil }
