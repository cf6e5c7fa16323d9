//go:build !linux

package process

import "time"

// adoptOrphans, endChildren and watchChildOutput are Linux-only (children_linux.go): elsewhere
// a hung credential plugin is abandoned when mvpctl exits, and its output is not bounded.
func adoptOrphans() {}

func endChildren(grace, killWait time.Duration) {}

func watchChildOutput(limit int64, tick time.Duration, mayRun func() bool, stopped func(reason string), done <-chan struct{}) {
}
