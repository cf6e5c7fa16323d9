// Command interleave times commands run in turn (round robin, the order rotating each round)
// rather than one after the other as hyperfine does, so that a shared machine's changing load
// falls on every command alike. It prints each command's mean and median wall time and CPU
// time (user + system) in ms, and its wall-time ratios to the last command.
//
//	go run ./test/tools/interleave -n 300 '/tmp/old version' '/tmp/new version' /tmp/hello
//
// Arguments are split on white space; no shell is involved. Output goes to /dev/null.
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	rounds := flag.Int("n", 300, "rounds (each runs every command once)")
	warmup := flag.Int("w", 5, "warm-up rounds, not counted")
	flag.Parse()
	cmds := flag.Args()
	if len(cmds) == 0 {
		fmt.Fprintln(os.Stderr, "usage: interleave [-n rounds] [-w warm-up] 'cmd args...' ... (the last is the reference)")
		os.Exit(2)
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "interleave:", err)
		os.Exit(1)
	}
	wall := make([][]float64, len(cmds))
	cpu := make([][]float64, len(cmds))
	run := func(i int, record bool) {
		argv := strings.Fields(cmds[i])
		start := time.Now()
		pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{devnull.Fd(), devnull.Fd(), devnull.Fd()}})
		if err != nil {
			fmt.Fprintf(os.Stderr, "interleave: %s: %v\n", cmds[i], err)
			os.Exit(1)
		}
		var ws syscall.WaitStatus
		var ru syscall.Rusage
		if _, err := syscall.Wait4(pid, &ws, 0, &ru); err != nil {
			fmt.Fprintf(os.Stderr, "interleave: %s: %v\n", cmds[i], err)
			os.Exit(1)
		}
		if !ws.Exited() || ws.ExitStatus() != 0 {
			fmt.Fprintf(os.Stderr, "interleave: %s: %v\n", cmds[i], ws)
			os.Exit(1)
		}
		if record {
			wall[i] = append(wall[i], float64(time.Since(start).Nanoseconds())/1e6)
			cpu[i] = append(cpu[i], float64(ru.Utime.Nano()+ru.Stime.Nano())/1e6)
		}
	}
	for r := 0; r < *warmup+*rounds; r++ {
		for k := range cmds {
			run((k+r)%len(cmds), r >= *warmup)
		}
	}
	median := func(x []float64) float64 { y := slices.Sorted(slices.Values(x)); return y[len(y)/2] }
	mean := func(x []float64) float64 {
		s := 0.0
		for _, v := range x {
			s += v
		}
		return s / float64(len(x))
	}
	ref := len(cmds) - 1
	for i, c := range cmds {
		fmt.Printf("%-60s wall mean %6.2f median %6.2f | cpu mean %6.2f median %6.2f | ×ref mean %5.2f median %5.2f\n",
			c, mean(wall[i]), median(wall[i]), mean(cpu[i]), median(cpu[i]), mean(wall[i])/mean(wall[ref]), median(wall[i])/median(wall[ref]))
	}
}
