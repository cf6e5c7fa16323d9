//go:build !linux

package process

import "time"

// adoptOrphans and endChildren are Linux-only (children_linux.go): elsewhere a hung credential
// plugin is abandoned when mvpctl exits, as before.
func adoptOrphans() {}

func endChildren(grace, killWait time.Duration) {}
